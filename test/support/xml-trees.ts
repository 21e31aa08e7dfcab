/**
 * Random XML element trees and a serializer for them, for property tests of the XML reader: what the
 * serializer writes the reader must give back, whichever of XML's equivalent spellings it picked
 * (entity or character reference, CDATA, quote style, self-closing tag, whitespace between children).
 */
import fc from 'fast-check';
import type { XmlElement } from '../../shared/processors/xml-reader.ts';

/** Characters that need escaping, line ends the reader normalises, and some beyond ASCII. */
const tricky = fc.constantFrom('<', '>', '&', '"', "'", ']', ']]>', '\t', '\n', '\r', '\r\n', ' ', 'é', '€', '😀', '&amp;');
const plain = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));

export const xmlText = fc.string({ unit: fc.oneof(plain, plain, tricky), maxLength: 20 });

export const xmlName = fc
  .tuple(fc.constantFrom('a', 'b', 'id', 'kind', 'x', '_', 'last', 'n'), fc.constantFrom('', '-4', '-code', '_id', '.v', ':ns', '2'))
  .map(([head, tail]) => head + tail);

function attributesArbitrary(): fc.Arbitrary<Map<string, string>> {
  return fc.uniqueArray(fc.tuple(xmlName, xmlText), { maxLength: 3, selector: ([name]) => name }).map((pairs) => new Map(pairs));
}

const leaf: fc.Arbitrary<XmlElement> = fc.record({ name: xmlName, attributes: attributesArbitrary(), children: fc.constant([]), text: xmlText });

export const xmlTree: fc.Arbitrary<XmlElement> = fc.letrec<{ element: XmlElement }>((tie) => ({
  element: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({
      name: xmlName,
      attributes: attributesArbitrary(),
      children: fc.array(tie('element'), { minLength: 1, maxLength: 4 }),
      text: fc.constant(''),
    }),
  ),
})).element;

/** How one document is spelled; every choice must read back to the same tree. */
export interface Spelling {
  declaration: boolean;
  singleQuotes: boolean;
  characterReferences: boolean;
  cdata: boolean;
  selfClosing: boolean;
  indent: string;
  comment: boolean;
}

export const spelling: fc.Arbitrary<Spelling> = fc.record({
  declaration: fc.boolean(),
  singleQuotes: fc.boolean(),
  characterReferences: fc.boolean(),
  cdata: fc.boolean(),
  selfClosing: fc.boolean(),
  indent: fc.constantFrom('', '\n', '\n  ', ' \t'),
  comment: fc.boolean(),
});

export function serializeXml(root: XmlElement, how: Spelling): string {
  return `${how.declaration ? '<?xml version="1.0" encoding="UTF-8"?>\n' : ''}${how.comment ? '<!-- generated -->' : ''}${element(root, how)}`;
}

function element(node: XmlElement, how: Spelling): string {
  const quote = how.singleQuotes ? "'" : '"';
  const attributes = [...node.attributes].map(([name, value]) => ` ${name}=${quote}${escape(value, how, true)}${quote}`).join('');
  if (node.children.length > 0) {
    const children = node.children.map((child) => `${how.indent}${element(child, how)}`).join('');
    return `<${node.name}${attributes}>${children}${how.indent}</${node.name}>`;
  }
  if (node.text === '' && how.selfClosing) return `<${node.name}${attributes}/>`;
  return `<${node.name}${attributes}>${text(node.text, how)}</${node.name}>`;
}

/** CDATA cannot hold a carriage return the reader would keep (line ends are normalised) nor ']]>'. */
function text(value: string, how: Spelling): string {
  if (how.cdata && !value.includes(']]>') && !value.includes('\r') && value !== '') return `<![CDATA[${value}]]>`;
  return escape(value, how, false);
}

function escape(value: string, how: Spelling, attribute: boolean): string {
  return [...value]
    .map((char) => {
      if (char === '&') return how.characterReferences ? '&#38;' : '&amp;';
      if (char === '<') return how.characterReferences ? '&#x3C;' : '&lt;';
      if (char === '>') return '&gt;';
      if (char === '"' && attribute) return '&quot;';
      if (char === "'" && attribute) return '&apos;';
      // Literal line ends are normalised (and in attributes turned into spaces): a reference keeps them.
      if (char === '\r') return '&#13;';
      if (attribute && (char === '\n' || char === '\t')) return `&#${char.charCodeAt(0)};`;
      return char;
    })
    .join('');
}

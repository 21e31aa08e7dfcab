/**
 * A small, strict XML reader for the documents payment processors send (Braintree's webhook payloads
 * and API answers): one root element, nested elements with attributes, text, the five predefined
 * entities and character references, CDATA sections, comments, and an XML declaration at the start.
 * Everything else is refused rather than guessed at: a DOCTYPE (so no entity expansion of any kind),
 * processing instructions after the declaration, undeclared entities, mismatched or unclosed tags,
 * duplicate attributes, text beside child elements (mixed content), content after the root, and
 * nesting deeper than MAX_DEPTH (the readers of the tree recurse).
 *
 * Whitespace between child elements is not content and is dropped; a leaf's text is kept as written
 * (after the XML rules: line ends become \n, and literal tabs and line ends in attribute values spaces).
 */

export interface XmlElement {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: readonly XmlElement[];
  /** A leaf's character data; '' for an element with children. */
  readonly text: string;
}

export class XmlSyntaxError extends Error {
  override readonly name = 'XmlSyntaxError';
}

export const MAX_DEPTH = 64;

const NAME = /[A-Za-z_:][-A-Za-z0-9._:]*/y;
const WHITESPACE = /[ \t\n]*/y;
const DECLARATION = /<\?xml[ \t\n][^?]*\?>/y;
/** Characters XML 1.0 does not allow anywhere, even as references. */
const FORBIDDEN_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

interface OpenElement {
  name: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
}

export function readXml(source: string): XmlElement {
  const input = source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const forbidden = FORBIDDEN_CHARACTER.exec(input);
  if (forbidden) throw new XmlSyntaxError(`character U+${forbidden[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()} is not allowed at offset ${forbidden.index}`);
  let position = skipWhitespace(input, 0);
  DECLARATION.lastIndex = position;
  if (DECLARATION.test(input)) position = DECLARATION.lastIndex;

  const open: OpenElement[] = [];
  let root: XmlElement | null = null;
  while (position < input.length) {
    const current = open.at(-1);
    if (!input.startsWith('<', position)) {
      const end = input.indexOf('<', position);
      const raw = input.slice(position, end === -1 ? input.length : end);
      if (!current) {
        if (raw.trim() !== '') throw new XmlSyntaxError(`text outside the root element at offset ${position}`);
      } else {
        current.text += decodeText(raw, position);
      }
      position += raw.length;
    } else if (input.startsWith('<!--', position)) {
      position = after(input, '-->', position, 'comment');
    } else if (input.startsWith('<![CDATA[', position)) {
      if (!current) throw new XmlSyntaxError(`CDATA outside the root element at offset ${position}`);
      const end = after(input, ']]>', position, 'CDATA section');
      current.text += input.slice(position + '<![CDATA['.length, end - ']]>'.length);
      position = end;
    } else if (input.startsWith('<!', position) || input.startsWith('<?', position)) {
      throw new XmlSyntaxError(`${input.startsWith('<!DOCTYPE', position) ? 'a DOCTYPE' : 'a declaration or processing instruction'} is not supported (offset ${position})`);
    } else if (input.startsWith('</', position)) {
      const name = readName(input, position + 2);
      const end = skipWhitespace(input, position + 2 + name.length);
      if (input[end] !== '>') throw new XmlSyntaxError(`expected '>' to end </${name}> at offset ${end}`);
      if (!current) throw new XmlSyntaxError(`closing tag </${name}> without an open element at offset ${position}`);
      if (current.name !== name) throw new XmlSyntaxError(`closing tag </${name}> does not match <${current.name}> at offset ${position}`);
      open.pop();
      root = close(current, open, position) ?? root;
      position = end + 1;
    } else {
      if (root) throw new XmlSyntaxError(`a second root element at offset ${position}`);
      if (open.length === MAX_DEPTH) throw new XmlSyntaxError(`elements nested deeper than ${MAX_DEPTH} at offset ${position}`);
      const tag = readStartTag(input, position);
      const element: OpenElement = { name: tag.name, attributes: tag.attributes, children: [], text: '' };
      position = tag.end;
      if (tag.selfClosing) root = close(element, open, position) ?? root;
      else open.push(element);
    }
  }
  const unclosed = open.at(-1);
  if (unclosed) throw new XmlSyntaxError(`unclosed element <${unclosed.name}> at the end of the document`);
  if (!root) throw new XmlSyntaxError('no root element');
  return root;
}

/** Hands a finished element to its parent; returns it when it is the root. */
function close(element: OpenElement, open: OpenElement[], position: number): XmlElement | null {
  const hasChildren = element.children.length > 0;
  if (hasChildren && element.text.trim() !== '') throw new XmlSyntaxError(`text beside child elements in <${element.name}> (offset ${position})`);
  const finished: XmlElement = { name: element.name, attributes: element.attributes, children: element.children, text: hasChildren ? '' : element.text };
  const parent = open.at(-1);
  if (!parent) return finished;
  parent.children.push(finished);
  return null;
}

interface StartTag {
  name: string;
  attributes: Map<string, string>;
  selfClosing: boolean;
  end: number;
}

function readStartTag(input: string, start: number): StartTag {
  const name = readName(input, start + 1);
  const attributes = new Map<string, string>();
  let position = start + 1 + name.length;
  for (;;) {
    const afterSpace = skipWhitespace(input, position);
    if (input.startsWith('/>', afterSpace)) return { name, attributes, selfClosing: true, end: afterSpace + 2 };
    if (input[afterSpace] === '>') return { name, attributes, selfClosing: false, end: afterSpace + 1 };
    if (afterSpace === position) throw new XmlSyntaxError(`expected whitespace, '>' or '/>' in <${name}> at offset ${position}`);
    const attribute = readName(input, afterSpace);
    let cursor = skipWhitespace(input, afterSpace + attribute.length);
    if (input[cursor] !== '=') throw new XmlSyntaxError(`expected '=' after attribute ${attribute} at offset ${cursor}`);
    cursor = skipWhitespace(input, cursor + 1);
    const quote = input[cursor];
    if (quote !== '"' && quote !== "'") throw new XmlSyntaxError(`expected a quoted value for attribute ${attribute} at offset ${cursor}`);
    const close = input.indexOf(quote, cursor + 1);
    if (close === -1) throw new XmlSyntaxError(`unterminated value of attribute ${attribute} at offset ${cursor}`);
    const raw = input.slice(cursor + 1, close);
    if (raw.includes('<')) throw new XmlSyntaxError(`'<' in the value of attribute ${attribute} at offset ${cursor}`);
    if (attributes.has(attribute)) throw new XmlSyntaxError(`duplicate attribute ${attribute} in <${name}> at offset ${afterSpace}`);
    attributes.set(attribute, decodeText(raw.replace(/[\t\n]/g, ' '), cursor + 1));
    position = close + 1;
  }
}

function readName(input: string, position: number): string {
  NAME.lastIndex = position;
  const match = NAME.exec(input);
  if (!match) throw new XmlSyntaxError(`expected a name at offset ${position}`);
  return match[0];
}

function skipWhitespace(input: string, position: number): number {
  WHITESPACE.lastIndex = position;
  WHITESPACE.test(input);
  return WHITESPACE.lastIndex;
}

/** The offset just past `terminator`, which must follow `start`. */
function after(input: string, terminator: string, start: number, what: string): number {
  const end = input.indexOf(terminator, start);
  if (end === -1) throw new XmlSyntaxError(`unterminated ${what} at offset ${start}`);
  return end + terminator.length;
}

/** Entities and character references resolved; a bare '&' or an unknown entity is an error. */
function decodeText(raw: string, offset: number): string {
  return raw.replace(/&([^;&<\s]*);?/g, (match: string, entity: string, at: number) => {
    if (!match.endsWith(';')) throw new XmlSyntaxError(`'&' that starts no entity at offset ${offset + at}`);
    if (Object.hasOwn(PREDEFINED, entity)) return PREDEFINED[entity]!;
    const reference = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(entity);
    const code = reference ? Number.parseInt(reference[1] ?? reference[2]!, reference[1] ? 16 : 10) : Number.NaN;
    if (!isXmlCharacter(code)) throw new XmlSyntaxError(`unknown entity or invalid character reference ${match} at offset ${offset + at}`);
    return String.fromCodePoint(code);
  });
}

const isXmlCharacter = (code: number): boolean =>
  code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, readXml, XmlSyntaxError, type XmlElement } from '../../shared/processors/xml-reader.ts';
import { serializeXml, spelling, xmlTree } from '../support/xml-trees.ts';

const leaf = (name: string, text: string, attributes: Record<string, string> = {}): XmlElement => ({
  name,
  attributes: new Map(Object.entries(attributes)),
  children: [],
  text,
});

function refusal(xml: string): string {
  try {
    readXml(xml);
  } catch (err) {
    if (err instanceof XmlSyntaxError) return err.message;
    throw err;
  }
  throw new Error(`expected an XmlSyntaxError for ${JSON.stringify(xml)}`);
}

describe('readXml', () => {
  it('reads a Braintree answer: declaration, attributes, nil and empty elements, indentation between children', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<subscription>
  <id>sub_1</id>
  <balance type="decimal">19.99</balance>
  <gateway-rejection-reason nil="true"/>
  <transactions type="array">
  </transactions>
  <add-ons type="array"/>
</subscription>
`;

    expect(readXml(xml)).toEqual({
      name: 'subscription',
      attributes: new Map(),
      text: '',
      children: [
        leaf('id', 'sub_1'),
        leaf('balance', '19.99', { type: 'decimal' }),
        leaf('gateway-rejection-reason', '', { nil: 'true' }),
        leaf('transactions', '\n  ', { type: 'array' }),
        leaf('add-ons', '', { type: 'array' }),
      ],
    });
  });

  it('resolves the predefined entities, decimal and hex character references, in text and attributes', () => {
    const root = readXml(`<a q='&quot;&apos;&#x41;'>&lt;b&gt; &amp; &#233;&#x1F600;</a>`);

    expect(root.text).toBe('<b> & é😀');
    expect(root.attributes.get('q')).toBe(`"'A`);
  });

  it('keeps CDATA as written and skips comments', () => {
    expect(readXml('<!-- before --><a><!-- inside --><![CDATA[<not> &amp; markup]]></a><!-- after -->').text).toBe('<not> &amp; markup');
  });

  it('normalises line ends, and literal tabs and line ends in attribute values, as XML prescribes', () => {
    const root = readXml('<a v="x\ty\r\nz">one\r\ntwo\rthree</a>');

    expect(root.text).toBe('one\ntwo\nthree');
    expect(root.attributes.get('v')).toBe('x y z');
  });

  it('accepts a byte order mark and whitespace around the root', () => {
    expect(readXml('\uFEFF \n<a>1</a>\n ').text).toBe('1');
  });

  it.each([
    ['', /^no root element$/],
    ['<notification><kind>check', /^unclosed element <kind> at the end of the document$/],
    ['<a></b>', /^closing tag <\/b> does not match <a>/],
    ['</a>', /^closing tag <\/a> without an open element/],
    ['<a/><b/>', /^a second root element/],
    ['text<a/>', /^text outside the root element/],
    ['<a/>text', /^text outside the root element/],
    ['<a>text<b/></a>', /^text beside child elements in <a>/],
    ['<a><b/>text</a>', /^text beside child elements in <a>/],
    ['<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', /^a DOCTYPE is not supported/],
    ['<a><?php echo 1 ?></a>', /^a declaration or processing instruction is not supported/],
    ['<a>&x;</a>', /^unknown entity or invalid character reference &x;/],
    ['<a>&#0;</a>', /^unknown entity or invalid character reference &#0;/],
    ['<a>&#xD800;</a>', /^unknown entity or invalid character reference/],
    ['<a>fish & chips</a>', /^'&' that starts no entity/],
    ['<a>&amp</a>', /^'&' that starts no entity/],
    ['<a b="1" b="2"/>', /^duplicate attribute b in <a>/],
    ['<a b="1"c="2"/>', /^expected whitespace, '>' or '\/>' in <a>/],
    ['<a b=1/>', /^expected a quoted value for attribute b/],
    ['<a b="x<y"/>', /^'<' in the value of attribute b/],
    ['<a b="x/>', /^unterminated value of attribute b/],
    ['<a><!-- open</a>', /^unterminated comment/],
    ['<a><![CDATA[x</a>', /^unterminated CDATA section/],
    ['<1a/>', /^expected a name/],
    ['<a>\u0001</a>', /^character U\+0001 is not allowed/],
  ])('refuses %j', (xml, message) => {
    expect(refusal(xml)).toMatch(message);
  });

  it(`refuses elements nested deeper than ${MAX_DEPTH}, and reads ${MAX_DEPTH}`, () => {
    const nested = (depth: number) => '<a>'.repeat(depth) + '</a>'.repeat(depth);

    expect(() => readXml(nested(MAX_DEPTH))).not.toThrow();
    expect(refusal(nested(MAX_DEPTH + 1))).toMatch(/^elements nested deeper than 64/);
  });

  it('reads back every tree the serializer writes, however it is spelled (property)', () => {
    fc.assert(
      fc.property(xmlTree, spelling, (tree, how) => {
        expect(readXml(serializeXml(tree, how))).toEqual(tree);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses every document cut short before its root closes (property)', () => {
    fc.assert(
      fc.property(xmlTree, spelling, fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), (tree, how, fraction) => {
        const xml = serializeXml(tree, how);
        const cut = Math.floor(fraction * xml.length);
        expect(() => readXml(xml.slice(0, cut))).toThrow(XmlSyntaxError);
      }),
      { numRuns: 500 },
    );
  });

  it('answers any input with a tree or an XmlSyntaxError, never another error (property)', () => {
    const markupish = fc.string({ unit: fc.constantFrom('<', '>', '/', '!', '?', '-', '[', ']', '&', ';', '#', 'x', 'a', '=', '"', "'", ' ', 'CDATA', '\n') });
    fc.assert(
      fc.property(fc.oneof(markupish, fc.string()), (input) => {
        try {
          readXml(input);
        } catch (err) {
          expect(err).toBeInstanceOf(XmlSyntaxError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

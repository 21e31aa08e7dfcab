import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { camelCase, readBraintreeXml } from '../../shared/processors/braintree-xml.ts';
import { XmlSyntaxError, type XmlElement } from '../../shared/processors/xml-reader.ts';
import { serializeXml, spelling } from '../support/xml-trees.ts';

// The `braintree` package's own reading of XML (xml2js, then Util.convertNodeToObject), to hold ours against.
const fromPackage = createRequire(createRequire(import.meta.url).resolve('braintree'));
const xml2js = fromPackage('xml2js') as { parseStringPromise(xml: string, options: object): Promise<unknown> };
const { Util } = fromPackage('./lib/braintree/util') as { Util: { convertNodeToObject(node: unknown): unknown } };

async function packageReading(xml: string): Promise<unknown> {
  return Util.convertNodeToObject(await xml2js.parseStringPromise(xml, { attrkey: '@', charkey: '#', explicitArray: false }));
}

describe('readBraintreeXml', () => {
  it('reads elements as camelCase keys, arrays, nil, integers, booleans and text', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<subscription>
  <id>sub_1</id>
  <billing-period-start-date type="date">2030-03-17</billing-period-start-date>
  <current-billing-cycle type="integer">3</current-billing-cycle>
  <never-expires type="boolean">true</never-expires>
  <trial-duration nil="true"/>
  <description></description>
  <transactions type="array">
    <transaction><id>txn_1</id><credit-card><last-4>1111</last-4><country-code-alpha2>GB</country-code-alpha2></credit-card></transaction>
    <transaction><id>txn_2</id></transaction>
  </transactions>
  <add-ons type="array"/>
</subscription>`;

    expect(readBraintreeXml(xml)).toEqual({
      subscription: {
        id: 'sub_1',
        billingPeriodStartDate: '2030-03-17',
        currentBillingCycle: 3,
        neverExpires: true,
        trialDuration: null,
        description: '',
        transactions: [{ id: 'txn_1', creditCard: { last4: '1111', countryCodeAlpha2: 'GB' } }, { id: 'txn_2' }],
        addOns: [],
      },
    });
  });

  it('makes a list of an element repeated outside an array, as the package does', () => {
    expect(readBraintreeXml('<errors><error><code>1</code></error><error><code>2</code></error></errors>')).toEqual({
      errors: { error: [{ code: '1' }, { code: '2' }] },
    });
  });

  it('keeps names that mean something to JavaScript objects as plain keys', () => {
    const read = readBraintreeXml('<a><constructor>text</constructor><__proto__><polluted>yes</polluted></__proto__></a>');

    // camelCase turns __proto__ into _Proto__, as in the package; constructor stays an own key.
    expect(read).toEqual({ a: { constructor: 'text', _Proto__: { polluted: 'yes' } } });
    expect(Object.getPrototypeOf(read.a)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['<a type="integer">3.5</a>', /type="integer"> holds '3.5'/],
    ['<a type="integer"></a>', /type="integer"> holds ''/],
    ['<a type="boolean">yes</a>', /type="boolean"> holds 'yes'/],
  ])('refuses typed values that are not of their type: %s', (xml, message) => {
    expect(() => readBraintreeXml(xml)).toThrow(XmlSyntaxError);
    expect(() => readBraintreeXml(xml)).toThrow(message);
  });

  it.each([
    ['processor-response-code', 'processorResponseCode'],
    ['last-4', 'last4'],
    ['country-code-alpha2', 'countryCodeAlpha2'],
    ['plan_id', 'planId'],
    ['id', 'id'],
  ])('names %s %s', (name, key) => {
    expect(camelCase(name)).toBe(key);
  });

  it('reads every Braintree-shaped document as the braintree package does (property)', async () => {
    await fc.assert(
      fc.asyncProperty(braintreeDocument, spelling, async (tree, how) => {
        const xml = serializeXml(tree, how);
        expect(readBraintreeXml(xml)).toEqual(await packageReading(xml));
      }),
      { numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Documents in the subset Braintree writes: untyped text, typed leaves, nil, nested objects (names may
// repeat), and type="array" lists of same-named items (the package orders a list by item name, so
// mixed names would come out in another order). Names are distinct after camelCasing, as Braintree's are.

const NAMES = ['id', 'kind', 'amount', 'status', 'created-at', 'last-4', 'country-code-alpha2', 'processor-response-code', 'plan_id', 'transaction'];
const name = fc.constantFrom(...NAMES);
const unit = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('<', '&', '"', '\n', '\t', 'é', '😀'),
);
const anyText = fc.string({ unit, maxLength: 12 });

const element = (elementName: string, attributes: Record<string, string>, text: string, children: XmlElement[] = []): XmlElement => ({
  name: elementName,
  attributes: new Map(Object.entries(attributes)),
  children,
  text,
});

const leaf: fc.Arbitrary<XmlElement> = fc.oneof(
  fc.tuple(name, anyText).map(([n, text]) => element(n, {}, text)),
  fc.tuple(name, fc.integer({ min: -1e9, max: 1e9 })).map(([n, value]) => element(n, { type: 'integer' }, String(value))),
  fc.tuple(name, fc.boolean()).map(([n, value]) => element(n, { type: 'boolean' }, String(value))),
  name.map((n) => element(n, { nil: 'true' }, '')),
  // The package gives nothing for a typed leaf that is empty or blank; Braintree writes nil="true" for those.
  fc
    .tuple(name, fc.constantFrom('datetime', 'date', 'decimal', 'symbol'), anyText.filter((text) => text.trim() !== ''))
    .map(([n, type, text]) => element(n, { type }, text)),
);

const braintreeDocument: fc.Arbitrary<XmlElement> = fc.letrec<{ node: XmlElement }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(name, fc.array(tie('node'), { minLength: 1, maxLength: 4 })).map(([n, children]) => element(n, {}, '', children)),
    fc
      .tuple(name, name, fc.array(tie('node'), { maxLength: 3 }))
      .map(([n, item, children]) => element(n, { type: 'array' }, '', children.map((child) => ({ ...child, name: item })))),
  ),
})).node;

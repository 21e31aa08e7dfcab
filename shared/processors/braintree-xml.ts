/**
 * Braintree's XML documents (webhook payloads and gateway answers) as plain objects, following the
 * conventions the `braintree` package applies (Util.convertNodeToObject over xml2js), so the fields
 * read from them are the same as before the package was dropped:
 *
 * - element names become camelCase keys (`processor-response-code` → processorResponseCode, `last-4` → last4);
 * - `type="array"` is a list of its children's values, whatever their names;
 * - `nil="true"` is null;
 * - `type="integer"` and `type="boolean"` are numbers and booleans (strictly: anything else is an error,
 *   where the package would give NaN or false);
 * - other leaves are their text ('' when empty), dates and decimals included;
 * - an element repeated under one parent becomes a list of its values.
 *
 * Objects are built with Object.fromEntries, so an element named `__proto__` is a plain key, never the
 * prototype.
 */
import { readXml, XmlSyntaxError, type XmlElement } from './xml-reader.ts';

export type BraintreeValue = string | number | boolean | null | BraintreeValue[] | { [key: string]: BraintreeValue };

/** `{ <root name in camelCase>: <value> }`, e.g. `{ notification: { kind, timestamp, subject } }`. */
export function readBraintreeXml(xml: string): Record<string, BraintreeValue> {
  const root = readXml(xml);
  return Object.fromEntries([[camelCase(root.name), valueOf(root)]]);
}

function valueOf(element: XmlElement): BraintreeValue {
  const type = element.attributes.get('type');
  if (type === 'array') return element.children.map(valueOf);
  if (element.attributes.get('nil') === 'true') return null;
  if (element.children.length > 0 || type === 'collection') return objectOf(element.children);
  if (type === 'integer') {
    if (!/^-?\d{1,15}$/.test(element.text.trim())) throw new XmlSyntaxError(`<${element.name} type="integer"> holds '${element.text}'`);
    return Number(element.text.trim());
  }
  if (type === 'boolean') {
    const text = element.text.trim();
    if (text !== 'true' && text !== 'false') throw new XmlSyntaxError(`<${element.name} type="boolean"> holds '${element.text}'`);
    return text === 'true';
  }
  return element.text;
}

function objectOf(children: readonly XmlElement[]): { [key: string]: BraintreeValue } {
  const values = new Map<string, BraintreeValue[]>();
  for (const child of children) {
    const key = camelCase(child.name);
    values.set(key, [...(values.get(key) ?? []), valueOf(child)]);
  }
  return Object.fromEntries([...values].map(([key, list]) => [key, list.length === 1 ? list[0]! : list]));
}

/** The package's toCamelCase: a '-' or '_' before a lowercase letter or digit is dropped and the next character capitalised. */
export const camelCase = (name: string): string => name.replace(/[-_][a-z0-9]/g, (pair) => pair[1]!.toUpperCase());

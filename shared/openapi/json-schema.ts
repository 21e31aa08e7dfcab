import * as z from '../zod.ts';
import { QUERY_VALUE_META } from '../http/query-schemas.ts';

export type JsonSchema = Record<string, unknown>;

/** Requests are documented as the client sends them (before transforms), responses as the service sends them. */
export type Direction = 'input' | 'output';

const COMPONENT_REF = '#/components/schemas/';

/**
 * A record keyed by an enum (`z.record(z.enum([...]), value)`) as the object it is: one property per
 * key. zod writes `propertyNames` and lists the keys as `required` with no property defined, which
 * JSON Schema allows but tools read as required properties of unknown shape.
 */
function keyedByEnum(json: JsonSchema): void {
  const keys = (json.propertyNames as JsonSchema | undefined)?.enum;
  const value = json.additionalProperties;
  if (json.type !== 'object' || !Array.isArray(keys) || typeof value !== 'object' || value === null) return;
  json.properties = Object.fromEntries(keys.map((key) => [String(key), value]));
  json.additionalProperties = false;
  delete json.propertyNames;
}

/**
 * Adjusts zod's JSON Schema where the generic conversion says less than we mean: a query value
 * documented by its meaning; formats standing for the long patterns zod adds beside them; the
 * safe-integer bounds zod puts on every integer left out; and response objects left open, because
 * adding a field to a response is a backward-compatible change (as at Stripe) that a client must tolerate.
 */
function adjust(zodSchema: z.core.$ZodType, json: JsonSchema, direction: Direction): void {
  const meaning = (z.globalRegistry.get(zodSchema) as Record<string, unknown> | undefined)?.[QUERY_VALUE_META];
  if (meaning) {
    for (const key of Object.keys(json)) delete json[key];
    Object.assign(json, meaning);
    return;
  }
  delete json[QUERY_VALUE_META];
  keyedByEnum(json);
  if (typeof json.format === 'string') delete json.pattern;
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  if (direction === 'output' && json.additionalProperties === false) delete json.additionalProperties;
}

/**
 * Converts zod schemas to OpenAPI 3.1 schemas (JSON Schema draft 2020-12). Schemas that carry an id
 * (`.meta({ id })`) become shared components, referenced wherever they appear.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, direction: Direction): JsonSchema {
    const converted = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io: direction,
      override: ({ zodSchema, jsonSchema }) => adjust(zodSchema, jsonSchema as JsonSchema, direction),
    }) as JsonSchema;
    const { $schema: _dialect, $defs, ...json } = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', `"${COMPONENT_REF}`)) as JsonSchema;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) this.add(id, definition);
    return json;
  }

  private add(id: string, definition: JsonSchema): void {
    const existing = this.schemas[id];
    // One id, one shape: a schema documented both as request and response would differ here.
    if (existing && JSON.stringify(existing) !== JSON.stringify(definition)) throw new Error(`Schema '${id}' converts to two different shapes`);
    this.schemas[id] = definition;
  }
}

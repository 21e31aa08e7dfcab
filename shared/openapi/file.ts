/** Where the generated description is committed, and its exact text (a test compares the two). */
export const OPENAPI_FILE = new URL('../../docs/openapi.json', import.meta.url);

export const serializeDocument = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

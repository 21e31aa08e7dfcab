import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { literalSchemaKeys, sdkSchemaModules } from '../../lib/sdk-schema-keys.mjs';

/** A module's exports, evaluated from its text (the snippets import nothing), lazy references by their text. */
async function exportsOf(source: string): Promise<string> {
  const module = await import(`data:text/javascript,${encodeURIComponent(source)}`);
  return JSON.stringify({ ...module }, (_key, value) => (typeof value === 'function' ? `function ${String(value)}` : value));
}

const GENERATED = `const _e = "error";
const _c = "client";
const _hE = "httpError";
const _m = "message";
export var BadRequestException$ = [-3, "com.amazonaws.sesv2", "BadRequestException",
    { [_e]: _c, [_hE]: 400 },
    [_m],
    [0]
];
export var Pick$ = [3, "n", "Pick", 0, [_m], [() => BadRequestException$]];
`;

describe('literal trait keys for the AWS SDK schemas (lib/sdk-schema-keys.mjs)', () => {
  it('writes computed keys naming string constants as those strings, and nothing else', () => {
    const rewritten = literalSchemaKeys(GENERATED);
    expect(rewritten).toContain('{ "error": _c, "httpError": 400 }');
    expect(rewritten).toContain('[_m],');
    expect(rewritten).toContain('[() => BadRequestException$]');
    expect(literalSchemaKeys('const _a = 1;\nexport const x = { [_a]: 2, [_b]: 3 };\nexport const y = t ? [_a] : 0;')).toBe(
      'const _a = 1;\nexport const x = { [_a]: 2, [_b]: 3 };\nexport const y = t ? [_a] : 0;',
    );
    // A literal __proto__ key would set the prototype instead of making a property.
    const proto = 'const _p = "__proto__";\nexport const x = { [_p]: 0 };';
    expect(literalSchemaKeys(proto)).toBe(proto);
  });

  it('is idempotent and leaves every export as it was', async () => {
    const rewritten = literalSchemaKeys(GENERATED);
    expect(literalSchemaKeys(rewritten)).toBe(rewritten);
    expect(await exportsOf(rewritten)).toEqual(await exportsOf(GENERATED));
  });

  it('keeps the value of any trait object, whatever its constants hold', async () => {
    const name = fc.stringMatching(/^_[A-Za-z][A-Za-z0-9]{0,3}$/);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(name, fc.string()), { minLength: 1, maxLength: 6, selector: ([key]) => key }), async (constants) => {
        const declarations = constants.map(([key, value]) => `const ${key} = ${JSON.stringify(value)};`).join('\n');
        const traits = constants.map(([key], i) => `[${key}]: ${i}`).join(', ');
        const source = `${declarations}\nexport const traits = { ${traits} };\n`;
        expect(await exportsOf(literalSchemaKeys(source))).toEqual(await exportsOf(source));
      }),
      { numRuns: 100 },
    );
  });

  it('has rewritten the installed clients (npm postinstall), so unused schemas can be dropped from bundles', () => {
    const modules = sdkSchemaModules(join(import.meta.dirname, '..', '..', 'node_modules'));
    expect(modules.some((file) => file.includes('client-sesv2'))).toBe(true);
    for (const file of modules) {
      const source = readFileSync(file, 'utf8');
      expect(literalSchemaKeys(source), file).toBe(source);
    }
  });
});

/**
 * Lets esbuild drop the AWS SDK schemas a function never uses. The SDK's generated schema modules
 * write trait objects with computed keys naming module constants (`{ [_e]: _c, [_hE]: 400 }`), and
 * esbuild keeps any statement with a computed key, since evaluating the key could have side effects
 * (evanw/esbuild#4373). So every schema of a client stayed in every bundle that used the client: the
 * SES v2 client's whole API (some 50 KB) in the campaign step's. Rewriting those keys to the string
 * literals the constants hold is what the SDK's own code generator is being changed to do
 * (aws/aws-sdk-js-v3#7607, smithy-lang/smithy-typescript#1889); until a release does, npm's
 * postinstall runs this over the installed schema modules, which CDK and the bench both bundle from.
 * Plain JavaScript with no dependencies: it runs before anything is built. Idempotent.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const STRING_CONSTANT = /^const (_[\w$]+) = ("(?:[^"\\\n]|\\.)*");$/gm;
const COMPUTED_KEY = /([{,]\s*)\[(_[\w$]+)\]:/g;

/**
 * The module's text with each computed key that names one of its string constants written as that
 * string; other computed keys (none are generated) are left as they are, and so is `__proto__`,
 * which as a literal key sets the object's prototype where a computed one makes a property.
 * @param {string} source
 * @returns {string}
 */
export function literalSchemaKeys(source) {
  const constants = new Map();
  for (const [, name, literal] of source.matchAll(STRING_CONSTANT)) {
    if (JSON.parse(literal) !== '__proto__') constants.set(name, literal);
  }
  return source.replace(COMPUTED_KEY, (whole, before, name) => (constants.has(name) ? `${before}${constants.get(name)}:` : whole));
}

/**
 * Every generated schema module of the installed `@aws-sdk/*` packages (`dist-es/**\/schemas/schemas_N.js`).
 * @param {string} nodeModules
 * @returns {string[]}
 */
export function sdkSchemaModules(nodeModules) {
  const scope = join(nodeModules, '@aws-sdk');
  let packages;
  try {
    packages = readdirSync(scope);
  } catch {
    return [];
  }
  return packages.flatMap((name) => {
    const distEs = join(scope, name, 'dist-es');
    try {
      return readdirSync(distEs, { recursive: true, encoding: 'utf8' })
        .filter((file) => /(^|[\\/])schemas[\\/]schemas_\d+\.js$/.test(file))
        .map((file) => join(distEs, file));
    } catch {
      return [];
    }
  });
}

/**
 * Rewrites the schema modules under `nodeModules`; returns how many changed.
 * @param {string} nodeModules
 * @returns {number}
 */
export function rewriteSdkSchemas(nodeModules) {
  let changed = 0;
  for (const file of sdkSchemaModules(nodeModules)) {
    const source = readFileSync(file, 'utf8');
    const rewritten = literalSchemaKeys(source);
    if (rewritten === source) continue;
    writeFileSync(file, rewritten);
    changed++;
  }
  return changed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const changed = rewriteSdkSchemas(join(import.meta.dirname, '..', 'node_modules'));
  console.log(`AWS SDK schema modules given literal trait keys: ${changed}`);
}

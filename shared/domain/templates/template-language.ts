import { Liquid, type Template } from 'liquidjs';
import { validationFailed } from '../../model/errors.ts';
import { isTemplateVariable, type TemplateValues } from '../../model/message-template.ts';

/**
 * The template language: Liquid (LiquidJS), strict. Only the documented variables (TEMPLATE_VARIABLES)
 * and the standard filters less `raw` exist; no file is ever read (include, render and layout find
 * nothing); rendering is bounded in time and memory, since merchants write the templates.
 */

/** Defence in depth behind the removed file tags: any file lookup misses. */
const NO_FILES = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async (file: string) => Promise.reject(new Error(`Template files are not available: ${file}`)),
  readFileSync: (file: string): string => {
    throw new Error(`Template files are not available: ${file}`);
  },
  resolve: (_root: string, file: string) => file,
  contains: async () => false,
  sep: '/',
};

const FILE_TAGS = ['include', 'render', 'layout', 'block'];

const BOUNDS = { parseLimit: 100_000, renderLimit: 200, memoryLimit: 1_000_000 };

/**
 * The `date` filter's language, as the Lambda runtime's default (LANG=en_US.UTF-8) gives it. Named,
 * so LiquidJS does not ask Intl for the system's: that first Intl.DateTimeFormat loads ICU's date
 * data, some 25 ms of every cold start that builds an engine, for a filter few templates use.
 */
const LOCALE = 'en-US';

function engine(outputEscape?: 'escape'): Liquid {
  const liquid = new Liquid({
    strictVariables: true,
    strictFilters: true,
    ownPropertyOnly: true,
    relativeReference: false,
    fs: NO_FILES,
    root: [],
    partials: [],
    layouts: [],
    locale: LOCALE,
    ...BOUNDS,
    ...(outputEscape ? { outputEscape } : {}),
  });
  // `raw` would print a customer's name into HTML unescaped; without it no filter undoes the escaping.
  delete (liquid.filters as Record<string, unknown>).raw;
  // A template is one text: the tags that pull in others are not there at all.
  for (const tag of FILE_TAGS) delete (liquid.tags as Record<string, unknown>)[tag];
  return liquid;
}

/** Subjects, text bodies and sms: plain text, nothing escaped. */
const plain = engine();
/** HTML bodies: every value printed is HTML-escaped; only the template's own markup is markup. */
const html = engine('escape');

export type SourceKind = 'plain' | 'html';

const engineFor = (kind: SourceKind): Liquid => (kind === 'html' ? html : plain);

/** Property reads a variable may take besides its value: Liquid's own size, first and last. */
const ALLOWED_PROPERTIES = new Set(['size', 'first', 'last']);

/** `{{ a.b }}` → "a.b"; a computed segment (`a[b]`) shows as `[…]`. */
const pathOf = (segments: readonly unknown[]): string => segments.map((segment) => (typeof segment === 'string' || typeof segment === 'number' ? String(segment) : '[…]')).join('.');

const where = (location: { row: number; col: number } | undefined): string => (location ? ` (line ${location.row}, column ${location.col})` : '');

/**
 * A template's source, parsed and checked: a syntax error, an unknown filter or tag, a file lookup,
 * or a variable outside the documented set fails as a 422 naming `field` (the body field's path).
 */
export function checkedTemplate(field: string, source: string, kind: SourceKind): Template[] {
  const liquid = engineFor(kind);
  let parsed: Template[];
  try {
    parsed = liquid.parse(source);
  } catch (error) {
    throw validationFailed(`Invalid ${field}: ${describeParseError(error)}`, field);
  }
  // Globals only: names a template assigns or loops over itself are its own.
  const { globals } = liquid.analyzeSync(parsed, { partials: false });
  for (const variable of Object.values(globals).flat()) {
    const [root, ...properties] = variable.segments;
    const known = typeof root === 'string' && isTemplateVariable(root) && properties.every((p) => typeof p === 'string' && ALLOWED_PROPERTIES.has(p));
    if (!known) {
      throw validationFailed(
        `Invalid ${field}: unknown variable '${pathOf(variable.segments)}'${where(variable.location)}; templates may use only the variables listed in docs/templates.md`,
        field,
      );
    }
  }
  return parsed;
}

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/Failed to lookup|Template files are not available|tag "(include|render|layout|block)" not found/.test(message)) return 'includes, render and layout tags are not supported: a template is one self-contained text';
  return message.replace(/^undefined filter/, 'unknown filter').replace(/, line:(\d+), col:(\d+)$/, ' (line $1, column $2)');
}

/**
 * Renders a checked template. A failure here (a bound exceeded, a filter given a value it cannot
 * take) is the template's, so it surfaces as a 422 on the field too.
 */
export function renderChecked(field: string, template: Template[], kind: SourceKind, values: TemplateValues): string {
  try {
    return engineFor(kind).renderSync(template, values) as string;
  } catch (error) {
    throw validationFailed(`Invalid ${field}: it cannot be rendered: ${describeParseError(error)}`, field);
  }
}

/** The variables a checked source uses (each a documented one, since it was checked). */
export function variablesIn(source: string, kind: SourceKind): string[] {
  return Object.keys(engineFor(kind).analyzeSync(parsedOnce('template', source, kind), { partials: false }).globals);
}

/** Parsed sources a warm function reuses: the built-in ones and the few a merchant's campaigns send. */
const parsedCache = new Map<string, Template[]>();
const PARSED_CACHE_SIZE = 200;

function parsedOnce(field: string, source: string, kind: SourceKind): Template[] {
  const key = `${kind}\u0000${source}`;
  const cached = parsedCache.get(key);
  if (cached) return cached;
  const parsed = checkedTemplate(field, source, kind);
  if (parsedCache.size >= PARSED_CACHE_SIZE) parsedCache.delete(parsedCache.keys().next().value!);
  parsedCache.set(key, parsed);
  return parsed;
}

/** Parses (once per source), checks and renders (sending and previewing a stored template). */
export const renderSource = (field: string, source: string, kind: SourceKind, values: TemplateValues): string =>
  renderChecked(field, parsedOnce(field, source, kind), kind, values);

import { config } from 'zod';

/**
 * zod as every module of the service uses it: without its JIT. On the first parse of each object
 * schema zod writes a parser for it and compiles it with `new Function`; that pays off over many
 * parses in one process, but a Lambda instance parses each schema a handful of times and pays the
 * compile in its cold start (docs/decisions.md, "Bundles and cold start: import work"). Jitless zod
 * also runs where code generation from strings is disallowed. The setting is read when a schema is
 * built, so it is set here, before any module that imports `z` from this one builds its schemas;
 * a unit test keeps the other modules from importing zod directly.
 */
config({ jitless: true });

// Re-exported name by name, not as one namespace object, so each bundle keeps only the parts of zod it uses.
export * from 'zod';

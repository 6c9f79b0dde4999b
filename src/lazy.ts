import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded on its first use instead of at import, for code that needs it synchronously: every
 * test file and every `assay run` imports this package, and most never use a chart, a JSON Schema or a
 * regex check (start-up cost, docs/runner.md). `require` of an ES module package works from Node 20.19,
 * the oldest Node this package supports. Code that is async anyway uses `await import()` instead.
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}

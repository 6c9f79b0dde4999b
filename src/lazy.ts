import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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

/**
 * The version of package `name` as a module at `from` would load it (the package.json above the file it
 * resolves to), or undefined when it is not installed there.
 */
export function installedVersion(name: string, from: string = import.meta.url): string | undefined {
  let dir: string;
  try {
    dir = dirname(createRequire(from).resolve(name));
  } catch {
    return undefined;
  }
  for (let up = 0; up < 8; up++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name) return pkg.version;
    } catch {
      // no package.json at this level: look further up
    }
  }
  return undefined;
}

/**
 * A package the `assay` bin carries a copy of for start-up speed (scripts/bundle-cli.mjs): the copy while the
 * installed package is the version it was made from, else the installed one — so a fix that `npm update`
 * installs reaches the bin without a release of assay.
 */
export function pinnedCopy<T>(name: string, copied: string, bundled: () => Promise<T>, installed: () => Promise<T>, from?: string): Promise<T> {
  return installedVersion(name, from) === copied ? bundled() : installed();
}

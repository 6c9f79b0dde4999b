import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every test file imports assay/vitest, so it must stay light (issue 19, item 8): at load time it reaches only
// Vitest; the runner, store, providers and judges come with `import()` when a block first runs.

/** The modules a source file loads when it is imported (its static imports that are not `import type`). */
function loadedModules(file: string): string[] {
  const text = readFileSync(join(import.meta.dirname, file), 'utf8');
  return [...text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map((m) => m[1]);
}

describe('what importing assay/vitest loads', () => {
  it('index.ts (assay/vitest) loads Vitest and nothing of assay but its time limits, the error model and the AI SDK cache, which load little', () => {
    expect(loadedModules('index.ts')).toEqual(['vitest', '../errors.js', './limits.js', '../providers/ai-sdk-cache.js']);
    // The AI SDK cache (withAssayCache): an async context and the cache's keys; no SDK, no store, no provider.
    expect(loadedModules('../providers/ai-sdk-cache.ts')).toEqual(['node:async_hooks', './cache.js']);
    expect(loadedModules('../providers/cache.ts')).toEqual(['node:crypto', './decorate.js']);
    expect(loadedModules('limits.ts')).toEqual([]);
    expect(loadedModules('../errors.ts')).toEqual([]);
  });

  it('the reporter loads only node:fs, node:path, how times are shown and the error model', () => {
    expect(loadedModules('reporter.ts')).toEqual(['node:fs', 'node:path', './when.js', '../errors.js']);
    expect(loadedModules('when.ts')).toEqual([]);
  });

  it('the engine and the run assembly load the judge layer and the providers only with import()', () => {
    const heavy = /judge|columns|providers\/factory|chat-factory|openai|sdk-providers/;
    expect(loadedModules('engine.ts').filter((m) => heavy.test(m))).toEqual([]);
    expect(loadedModules('engine.ts')).toContain('../run/assemble.js');
    expect(loadedModules('../run/assemble.ts').filter((m) => heavy.test(m))).toEqual([]);
    const text = readFileSync(join(import.meta.dirname, '..', 'run', 'assemble.ts'), 'utf8');
    expect(text).toContain("await import('./columns.js')");
    expect(text).toContain("await import('../providers/factory.js')");
  });
});

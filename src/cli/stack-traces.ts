import { readFileSync } from 'node:fs';
import { findSourceMap, SourceMap } from 'node:module';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Stack traces of the bundled bin in terms of the sources: a frame in a file of `dir` (dist/cli/, the bundle)
 * that has a source map beside it (`<file>.map`, with the sources inside: src/ is not in the package) is
 * printed as the `src/…` file, line and column it came from.
 *
 * Node maps stacks itself with `--enable-source-maps` or `process.setSourceMapsEnabled(true)`, but reads a
 * module's map when it compiles that module, for every module, errors or not: for the run's chunk that is a
 * 2 MB map parsed on every `assay run` (25–40 ms of CPU on Node 20: docs/runner.md, "Start-up"). Here a map is
 * read the first time a stack with a frame in its file is formatted, which only an internal error does.
 * When Node maps stacks itself already (the flag), this leaves it to Node. When something turns Node's maps
 * on later (tsx does, to load a TypeScript config), frames of the files Node has maps for (the config) are
 * mapped with those, as Node would.
 */
export function mapStackTraces(dir: string): void {
  if (process.sourceMapsEnabled) return;
  const inDir = dir.endsWith(sep) ? dir : dir + sep;
  const maps = new Map<string, { map: SourceMap; dir: string } | null>();
  const mapOf = (file: string) => {
    if (!maps.has(file)) {
      let found: { map: SourceMap; dir: string } | null = null;
      try {
        found = { map: new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))), dir: dirname(file) };
      } catch {
        // No map beside this file (a chunk that only re-exports), or an unreadable one: its frames stay as they are.
      }
      maps.set(file, found);
    }
    return maps.get(file)!;
  };

  const fromNode = (name: string, file: string) => {
    const map = findSourceMap(name);
    return map ? { map, dir: dirname(file) } : null;
  };

  /** `fn (src/x.ts:3:5)` for a frame the maps know, else the frame as V8 prints it. */
  const frame = (site: NodeJS.CallSite): string => {
    const text = String(site);
    const name = site.getFileName();
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (!name || line === null || column === null) return text;
    const file = name.startsWith('file:') ? fileURLToPath(name) : name;
    const found = file.startsWith(inDir) ? mapOf(file) : process.sourceMapsEnabled ? fromNode(name, file) : null;
    const entry = found?.map.findEntry(line - 1, column - 1);
    // Only a mapping on this very line: findEntry falls back to the last one before it (bundler-made code has none).
    if (!found || !entry || !('originalSource' in entry) || entry.generatedLine !== line - 1) return text;
    const original = entry.originalSource;
    const source = original.startsWith('file:') ? fileURLToPath(original) : isAbsolute(original) ? original : resolve(found.dir, original);
    const where = `${name}:${line}:${column}`;
    const mapped = `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    return text.includes(where) ? text.replace(where, mapped) : text;
  };

  Error.prepareStackTrace = (err: Error, sites: NodeJS.CallSite[]) => {
    let head: string;
    try {
      head = Error.prototype.toString.call(err);
    } catch {
      head = 'Error';
    }
    return head + sites.map((site) => `\n    at ${frame(site)}`).join('');
  };
}

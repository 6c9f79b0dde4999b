import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Which npm packages a Node process loaded (tests only): every module URL the ES module loader resolves,
 * and at exit every file in the CommonJS cache (where lazily `require`d packages land, ES modules included).
 * `nodeArgs(file)` goes before the script; `packagesIn(file)` reads the names back.
 */
const HOOKS = `
import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(out, r.url + '\\n');
  return r;
}`;

const preload = (file: string) => `
import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
const out = ${JSON.stringify(file)};
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { out } });
process.on('exit', () => appendFileSync(out, Object.keys(createRequire(process.execPath).cache).join('\\n') + '\\n'));`;

export function tracePackagesArgs(file: string): string[] {
  return ['--import', `data:text/javascript,${encodeURIComponent(preload(file))}`];
}

/** Package names (`pg`, `@observablehq/plot`) of the innermost node_modules folder of every path or URL in `file`. */
export function packagesIn(file: string): Set<string> {
  const names = new Set<string>();
  if (!existsSync(file)) return names;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const all = [...line.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
    if (all.length) names.add(all[all.length - 1][1]);
  }
  return names;
}

/**
 * The modules of the CLI's bundle (dist/cli/, scripts/bundle-cli.mjs) that a process loaded, by the files they
 * were bundled from (`dist/report/html.js`, `node_modules/openai/client.mjs`): rolldown heads each module's
 * code with a `// <path>` line. Packages inlined in the bundle show here, not in packagesIn.
 */
export function bundledModulesIn(file: string): Set<string> {
  const modules = new Set<string>();
  if (!existsSync(file)) return modules;
  const chunks = new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((u) => /^file:.*\/dist\/cli\/[^/]+\.js$/.test(u)),
  );
  for (const url of chunks) {
    for (const m of readFileSync(fileURLToPath(url), 'utf8').matchAll(/^\/\/ ((?:dist|node_modules)\/\S+\.[cm]?js)$/gm)) modules.add(m[1]);
  }
  return modules;
}

/**
 * The packages a process loaded, from node_modules or from the bundle's chunks (yaml and zod are inlined in
 * the bin): the same answer whether the CLI under test is the sources or the built bin.
 */
export function loadedPackagesIn(file: string): Set<string> {
  const names = packagesIn(file);
  for (const m of bundledModulesIn(file)) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m)?.[1];
    if (name) names.add(name);
  }
  return names;
}

// The `assay` bin as an ES-module bundle with chunks, made by `npm run build` after tsc. Unbundled, `assay run`
// of one call opened ≈ 500 files (openai 155, zod 99, yaml 73, dist 130) and spent most of its start-up
// resolving, reading and compiling them (docs/runner.md, "Start-up"). The library's entry points (`assay`,
// `assay/vitest`, …) stay as tsc emits them; only dist/cli/ is replaced: tsc's dist/cli/main.js and what it
// imports go in, the bundle (main.js and its chunks, one folder) comes out in its place.
//
// - Every `import()` stays a boundary: its code is a chunk loaded only when it runs (each command, the openai
//   client, the queue, HTML reports, the server, the sandbox, grounding …).
// - What `assay run` imports statically, beyond what main.js has, is one chunk (run-static): split by which
//   other commands share each module, it was ≈ 45 small chunks, and their loading cost ≈ 35 ms of CPU a run.
// - Inlined: yaml and zod (INLINE), which every `assay run` loads (the config), and what they import. Pinned:
//   openai (PINNED, below): a copy loaded only while node_modules holds the version it was made from, so a
//   fix `npm update` installs reaches the bin. Every other package stays external, loaded from node_modules:
//   commander, native modules, packages with files of their own (wasm, loaders), optional peers, those loaded
//   lazily by name (src/lazy.ts), the server's (hono). Decided by `npm run -s bench:startup -- --json --runs
//   20` and CPU time (user + sys, medians of 15 alternated one-call runs against `assay mock`, Node 20, 2
//   shared cores at load average 9–12; the run loads openai, as the bench's does): yaml and zod inlined,
//   openai external: 0.30 s of CPU; commander inlined as well, 0.30 s (so it is not); zod external, 0.37 s;
//   yaml external, 0.35 s; openai inlined, 0.23 s (the build before: 0.22 s). openai from node_modules is 154
//   files, ≈ 75 ms of CPU more than its chunk (≈ 9 ms): run_one_per_node 4.3 against 3.6 (load 6.7); pinned,
//   3.4 against 3.7 for the build before the refactor in the same 20 alternated rounds (load 16.8).
// - Source maps (sourcemap: true), with the sources inside them (src/ is not in the package): tsc emits
//   its maps with the sources inlined (tsconfig.build.json), the inputMaps plugin hands them to rolldown,
//   and the bundle's maps lead from each chunk to src/*.ts (and node_modules/yaml|zod/…). The bin reads
//   them only when a stack is printed (src/cli/stack-traces.ts); tsc's maps of the library's files are
//   deleted after the bundle is made (the library ships without maps, as before).
// - `new URL('./x.js', import.meta.url)` (worker-thread entry files) is rewritten to point from dist/cli/ to
//   the file tsc emitted, which the worker runs as before.
import { Buffer } from 'node:buffer';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(root, 'dist');
const out = resolve(dist, 'cli'); // where the bundle ends up
const tmp = resolve(dist, 'cli.bundle'); // written here first: tsc's dist/cli is the input
const MAIN = resolve(out, 'main.js');
const RUN = resolve(out, 'run.js');

/** Inlined packages (with the packages they import): those on the path of `assay run`. */
const INLINE = new Set(['yaml', 'zod']);
/** The prefix of a pinned package's copy (pinnedCopies below). */
const COPY = 'assay-copy:';
/** Never inlined, even where an inlined package imports them. */
const NATIVE = new Set(['better-sqlite3']);

const packageName = (id) => id.split('/', id.startsWith('@') ? 2 : 1).join('/');
const isBare = (id) => !/^(\.|\/|\0|node:|[a-zA-Z]:[\\/])/.test(id);
const inNodeModules = (file) => file.includes(`${sep}node_modules${sep}`);

function external(id, importer) {
  if (id.startsWith('node:')) return true;
  if (id.startsWith(COPY)) return false; // a pinned package's copy (below)
  if (!isBare(id)) return false;
  const name = packageName(id);
  if (NATIVE.has(name)) return true;
  return !(INLINE.has(name) || (importer !== undefined && inNodeModules(importer)));
}

const URL_OF_FILE = /new URL\(\s*(['"`])(\.\.?\/[^'"`$]*)\1\s*,\s*import\.meta\.url\s*\)/g;

/** `new URL('./worker.js', import.meta.url)` in dist/sandbox/host.js → `new URL('../sandbox/worker.js', …)` from dist/cli/. */
const fileUrls = {
  name: 'assay-file-urls',
  transform(code, id) {
    if (inNodeModules(id) || !id.startsWith(dist + sep) || !code.includes('import.meta.url')) return null;
    const rewritten = code.replace(URL_OF_FILE, (_, q, rel) => {
      const target = relative(out, resolve(dirname(id), rel))
        .split(sep)
        .join('/');
      return `new URL(${q}${target.startsWith('.') ? target : `./${target}`}${q}, import.meta.url)`;
    });
    // A path within one line: the lines stay where they were, so the input map still holds (map: null keeps it).
    return { code: rewritten, map: null };
  },
};

const MAP_URL = /\n\/\/# sourceMappingURL=(\S+)\s*$/;

/** tsc's maps (with the sources inlined) as the input maps of its files: the bundle's maps then lead to src/. */
const inputMaps = {
  name: 'assay-input-maps',
  load(id) {
    if (!id.startsWith(dist + sep) || !id.endsWith('.js')) return null;
    const code = readFileSync(id, 'utf8');
    const m = MAP_URL.exec(code);
    if (!m) this.error(`${id} has no source map: tsconfig.build.json must emit them (sourceMap, inlineSources)`);
    return { code: code.slice(0, m.index + 1), map: readFileSync(resolve(dirname(id), m[1]), 'utf8') };
  },
};

/**
 * Packages the bin carries a copy of, loaded through `import()` (PINNED): `import('openai')` becomes
 * `pinnedCopy('openai', '<version copied>', () => import(<the copy>), () => import('openai'))` (src/lazy.ts):
 * the copy while node_modules holds the same version, the installed package once `npm update` has brought
 * another (a security fix reaches the bin with it). openai from node_modules is 154 files and ≈ 75 ms of CPU a
 * run; its copy, one chunk, ≈ 9 ms.
 */
const PINNED = ['openai'];
const LAZY = resolve(dist, 'lazy.js');
const versionOf = (name) => JSON.parse(readFileSync(resolve(root, 'node_modules', name, 'package.json'), 'utf8')).version;
const pinnedCopies = {
  name: 'assay-pinned-copies',
  resolveId(id) {
    if (!id.startsWith(COPY)) return null;
    return fileURLToPath(import.meta.resolve(id.slice(COPY.length)));
  },
  transform(code, id) {
    if (inNodeModules(id) || !id.startsWith(dist + sep)) return null;
    let changed = false;
    for (const name of PINNED) {
      const call = new RegExp(`\\bimport\\((['"])${name}\\1\\)`, 'g');
      if (!call.test(code)) continue;
      changed = true;
      code = code.replace(
        call,
        `__assayPinnedCopy(${JSON.stringify(name)}, ${JSON.stringify(versionOf(name))}, () => import(${JSON.stringify(COPY + name)}), () => import(${JSON.stringify(name)}))`,
      );
    }
    if (!changed) return null;
    // Prepended to the first line: no line moves, so the input map still holds.
    return { code: `import { pinnedCopy as __assayPinnedCopy } from ${JSON.stringify(LAZY)};` + code, map: null };
  },
};

/** The modules main.js imports statically (transitively), and those run.js does beyond them: the two groups. */
const mainModules = new Set();
const runModules = new Set();
const staticClosure = (ctx, from) => {
  const seen = new Set();
  const stack = [from];
  while (stack.length) {
    const id = stack.pop();
    if (seen.has(id)) continue;
    seen.add(id);
    const info = ctx.getModuleInfo(id);
    if (info && !info.isExternal) stack.push(...info.importedIds);
  }
  return seen;
};
const runGroup = {
  name: 'assay-run-group',
  buildEnd() {
    for (const id of staticClosure(this, MAIN)) if (id !== MAIN) mainModules.add(id);
    for (const id of staticClosure(this, RUN)) if (!mainModules.has(id)) runModules.add(id);
    if (runModules.size < 50) this.error(`the run command's static imports are ${runModules.size} modules: is ${RUN} still its entry?`);
  },
};

rmSync(tmp, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: MAIN },
  platform: 'node',
  // node_modules as the package's folder names it (a linked node_modules keeps its path): the comments before
  // each module and the maps' sources read `node_modules/<package>/…`.
  resolve: { symlinks: false },
  external,
  plugins: [inputMaps, fileUrls, pinnedCopies, runGroup],
  logLevel: 'warn',
  // run.js is also imported statically by other commands (guard, runs, worker): expected, not a problem.
  onLog(level, log, handler) {
    if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') handler(level, log);
  },
});
const { output } = await bundle.write({
  dir: tmp,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  // Errors are told apart by their classes' names (the openai client's): keep names through renaming.
  keepNames: true,
  // Maps with the sources in them (src/ is not in the package): a stack trace names src/ files and lines.
  sourcemap: true,
  // JSDoc is for readers of the sources (shipped in dist/ beside the bundle); licence comments stay.
  comments: { legal: true, annotation: true, jsdoc: false },
  // main.js's own imports first, so that the run's group (which takes its members' imports too) leaves them
  // to `assay --version`, which would otherwise load the run's chunk.
  codeSplitting: {
    groups: [
      { name: 'main-static', test: (id) => mainModules.has(id), priority: 20 },
      { name: 'run-static', test: (id) => runModules.has(id), priority: 10 },
    ],
  },
});
await bundle.close();
rmSync(out, { recursive: true, force: true });
renameSync(tmp, out);

/** tsc's maps served as the bundle's input; the library's files ship without them (as before), so they go. */
function dropMaps(folder) {
  for (const name of readdirSync(folder)) {
    const file = resolve(folder, name);
    if (file === out) continue;
    if (statSync(file).isDirectory()) dropMaps(file);
    else if (name.endsWith('.js.map')) rmSync(file);
    else if (name.endsWith('.js')) {
      const code = readFileSync(file, 'utf8');
      const m = MAP_URL.exec(code);
      if (m) writeFileSync(file, code.slice(0, m.index + 1));
    }
  }
}
dropMaps(dist);
const size = (type) => output.reduce((n, o) => n + (o.type === type ? Buffer.byteLength(o.type === 'chunk' ? o.code : o.source) : 0), 0);
console.log(
  `bundle-cli: dist/cli: ${output.length} files, code ${(size('chunk') / 1e6).toFixed(2)} MB, maps ${(size('asset') / 1e6).toFixed(2)} MB (the run path: ${runModules.size} modules in one chunk)`,
);

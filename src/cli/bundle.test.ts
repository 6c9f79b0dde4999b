import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startMock } from '../mock/index.js';
import { useConfigDir } from './testing/config-dir.js';
import { bundledModulesIn, packagesIn, tracePackagesArgs } from './testing/loaded-packages.js';
import { BUILT_MAIN, runCliProcess } from './testing/process.js';

/**
 * The `assay` bin as it ships: the bundle of scripts/bundle-cli.mjs in dist/cli/ (built by `npm run build`,
 * which `npm test` runs first). The other CLI tests run it too under `npm test` (ASSAY_TEST_CLI=bin), the
 * sources when run by hand; these hold what only the bundle can get wrong: a lazy boundary collapsed into
 * the run's chunk, a file the bundle must find beside itself, a package frozen inside it, its source maps.
 */
const tmp = useConfigDir('assay-bundle-');
const DIST_CLI = dirname(BUILT_MAIN);
const ROOT = resolve(DIST_CLI, '../..');
/**
 * The only packages the bundle carries copies of (scripts/bundle-cli.mjs): yaml and zod (INLINE), and openai
 * (PINNED: its copy loads only while node_modules holds the version it was made from). The rest load from
 * node_modules.
 */
const INLINED = ['openai', 'yaml', 'zod'];
const built = () => expect(existsSync(BUILT_MAIN), `${BUILT_MAIN} is built by npm run build (npm test runs it first)`).toBe(true);
const traceFile = (name: string) => join(tmp.dir(), `${name}.loaded`);

/** `node ...args`: its exit code and stderr. */
function runNode(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENAI_API_KEY: 'test' } });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, err })));
}

const PLAIN = [
  'name: plain',
  'system: { simulated: { seed: 1, latencyMs: 0, outputs: [{ text: "hello there" }] } }',
  'inputs: ["Say hello."]',
  'samples: 2',
  'validators:',
  '  - { name: greets, check: { type: contains, value: hello }, minSuccess: 0.01 }',
  '',
].join('\n');

/** Packages and bundled modules that only a feature a plain run does not use may load. */
const LAZY_PACKAGES = [
  'openai',
  'bullmq',
  'ioredis',
  'pg',
  '@observablehq/plot',
  'linkedom',
  'quickjs-emscripten',
  'highs',
  're2js',
  'ajv',
  'hono',
  'string-width',
];
const LAZY_MODULES = [
  /^dist\/report\/html\.js$/,
  /^dist\/report\/charts\.js$/,
  /^dist\/queue\/coordinator\.js$/,
  /^dist\/server\//,
  /^dist\/ground\/pool\//,
  /^dist\/spade\//,
];

describe('the bundled bin (dist/cli)', () => {
  it('prints its version, loading no command', async () => {
    built();
    const r = await runCliProcess(['--version'], { built: true, nodeArgs: tracePackagesArgs(traceFile('version')) });
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(JSON.parse(readFileSync(resolve(DIST_CLI, '../../package.json'), 'utf8')).version);
    const modules = [...bundledModulesIn(traceFile('version'))];
    // main.js, its stack mapping, the errors it reports, the flag names it reports them with (cli/flag-names.ts, no
    // imports), and how it was started, for the hints it prints (invocation.ts, cli/invocation.ts: node builtins only).
    const own = ['dist/cli/main.js', 'dist/cli/stack-traces.js', 'dist/errors.js', 'dist/cli/flag-names.js', 'dist/invocation.js', 'dist/cli/invocation.js'];
    expect(modules).toEqual(expect.arrayContaining(own.filter((m) => m !== 'dist/cli/flag-names.js')));
    expect(modules.filter((m) => m.startsWith('dist/') && !own.includes(m))).toEqual([]);
  });

  it('a plain run loads no lazy chunk: no openai client, HTML report, queue, server, grounding or SPADE code, nor their packages', async () => {
    built();
    const config = tmp.config('plain.yaml', PLAIN);
    const r = await runCliProcess(['run', config, '--store', join(tmp.dir(), 'plain.db'), '--no-progress'], {
      built: true,
      nodeArgs: tracePackagesArgs(traceFile('plain')),
    });
    expect(r.err).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/greets .* PASS/);
    const modules = bundledModulesIn(traceFile('plain'));
    // The tracer sees the bundle: the run's own modules and the inlined packages it uses.
    expect([...modules]).toEqual(expect.arrayContaining(['dist/cli/run.js', 'dist/config/load.js', 'dist/store/sqlite.js']));
    expect([...modules].some((m) => m.startsWith('node_modules/yaml/'))).toBe(true);
    expect([...modules].filter((m) => LAZY_MODULES.some((re) => re.test(m)))).toEqual([]);
    const packages = packagesIn(traceFile('plain'));
    expect(packages.has('better-sqlite3')).toBe(true);
    expect(LAZY_PACKAGES.filter((p) => packages.has(p))).toEqual([]);
  }, 120_000);

  it('a run that uses them loads them: openai (its copy: node_modules holds the same version) against the mock, a YAML predicate in the sandbox worker, a regex check, an HTML report', async () => {
    built();
    const mock = await startMock('openai', { chat: () => ({ content: 'hello there' }) });
    try {
      const config = tmp.config(
        'used.yaml',
        [
          'name: used',
          `system: { openai: { model: gpt-4o-mini, baseURL: "${mock.baseURL}" } }`,
          'inputs: ["Say hello."]',
          'samples: 1',
          'validators:',
          '  - { name: greets, check: { type: regex, pattern: "^hel+o" }, minSuccess: 0.01 }',
          '  - { name: short, predicate: "o => o.length < 50", minSuccess: 0.01 }',
          '',
        ].join('\n'),
      );
      const html = join(tmp.dir(), 'used.html');
      const r = await runCliProcess(['run', config, '--store', join(tmp.dir(), 'used.db'), '--no-progress', '--html', html], {
        built: true,
        nodeArgs: tracePackagesArgs(traceFile('used')),
        env: { ...process.env, OPENAI_API_KEY: 'test' },
      });
      expect(r.err).not.toMatch(/internal error/);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/greets .* PASS/);
      expect(r.out).toMatch(/short .* PASS/);
      expect(readFileSync(html, 'utf8')).toMatch(/<svg/);
      const modules = [...bundledModulesIn(traceFile('used'))];
      expect(modules).toContain('dist/report/html.js');
      // The predicate ran (short passed) in the sandbox's worker thread, from the file the bundle names (its packages load there).
      const packages = packagesIn(traceFile('used'));
      expect([...packages]).toEqual(expect.arrayContaining(['re2js', '@observablehq/plot', 'linkedom']));
      expect(modules.filter((m) => m.startsWith('node_modules/openai/')).length).toBeGreaterThan(50);
      expect(packages.has('openai')).toBe(false);
      expect(['bullmq', 'ioredis', 'pg', 'highs', 'hono'].filter((p) => packages.has(p))).toEqual([]);
    } finally {
      await mock.close();
    }
  }, 120_000);

  it('every file it names beside itself exists (worker-thread entries: the sandbox, the grounding pool)', () => {
    built();
    const named = readdirSync(DIST_CLI)
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) => [...readFileSync(join(DIST_CLI, f), 'utf8').matchAll(/new URL\(\s*["'`]([^"'`]+)["'`]\s*,\s*import\.meta\.url\s*\)/g)].map((m) => m[1]))
      // The .ts entries are the sources' (run under tsx), never taken from dist.
      .filter((rel) => !rel.endsWith('.ts'));
    expect(named).toEqual(expect.arrayContaining(['../sandbox/worker.js', '../ground/pool/worker']));
    for (const rel of named) {
      const file = resolve(DIST_CLI, rel);
      expect(existsSync(file) || existsSync(`${file}.js`), `${rel} (from dist/cli)`).toBe(true);
    }
  });

  it("takes an assay error from the package a config imports (tsc's copy, not the bundle's) as one: its message, its exit code", async () => {
    built();
    const index = pathToFileURL(resolve(DIST_CLI, '../index.js')).href;
    const config = tmp.config(
      'throws.mjs',
      `import { UsageError } from ${JSON.stringify(index)};\nexport default () => { throw new UsageError('throws.mjs: inputs: made by the config'); };\n`,
    );
    const r = await runCliProcess(['run', config, '--store', join(tmp.dir(), 'throws.db'), '--no-progress'], { built: true });
    expect(r.err).not.toMatch(/internal error/);
    expect(r.err).toMatch(/^assay: throws\.mjs: inputs: made by the config$/m);
    expect(r.code).toBe(2);
  });

  it('carries copies of yaml and zod, and of openai pinned to its version; commander and the rest load from node_modules', () => {
    built();
    const inlined = new Set<string>();
    for (const f of readdirSync(DIST_CLI).filter((f) => f.endsWith('.js'))) {
      for (const m of readFileSync(join(DIST_CLI, f), 'utf8').matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/\s]+)\//gm)) inlined.add(m[1]);
    }
    expect([...inlined].sort()).toEqual(INLINED);
  });

  it('loads the installed openai, not its copy, once node_modules holds another version (a fix `npm update` brings reaches the bin)', async () => {
    built();
    // The package as installed, with node_modules/openai at another version: dist copied, every other package linked.
    const pkg = join(tmp.dir(), 'updated');
    cpSync(resolve(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
    cpSync(resolve(ROOT, 'package.json'), join(pkg, 'package.json'));
    mkdirSync(join(pkg, 'node_modules'));
    for (const name of readdirSync(resolve(ROOT, 'node_modules'))) {
      if (name !== 'openai' && !name.startsWith('.')) symlinkSync(resolve(ROOT, 'node_modules', name), join(pkg, 'node_modules', name));
    }
    cpSync(resolve(ROOT, 'node_modules', 'openai'), join(pkg, 'node_modules', 'openai'), { recursive: true });
    const manifest = join(pkg, 'node_modules', 'openai', 'package.json');
    const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(`"version": "${version}"`, `"version": "${version}-patched"`));
    const mock = await startMock('openai', { chat: () => ({ content: 'hello there' }) });
    try {
      const config = tmp.config('updated.yaml', PLAIN.replace(/^system: .*$/m, `system: { openai: { model: gpt-4o-mini, baseURL: "${mock.baseURL}" } }`));
      const r = await runNode([
        ...tracePackagesArgs(traceFile('updated')),
        join(pkg, 'dist', 'cli', 'main.js'),
        'run',
        config,
        '--store',
        join(tmp.dir(), 'updated.db'),
        '--no-progress',
      ]);
      expect(r.code, r.err).toBe(0);
      // openai came from node_modules (the patched version's files), none of it from the bundle's copy.
      expect(packagesIn(traceFile('updated')).has('openai')).toBe(true);
      expect([...bundledModulesIn(traceFile('updated'))].filter((m) => m.startsWith('node_modules/openai/'))).toEqual([]);
    } finally {
      await mock.close();
    }
  }, 120_000);

  it('ships a source map for every chunk with code of its own, with the sources in it: src/ files and the inlined packages', () => {
    built();
    const chunks = readdirSync(DIST_CLI).filter((f) => f.endsWith('.js'));
    const mapped = chunks.filter((f) => /^\/\/ (dist|node_modules)\//m.test(readFileSync(join(DIST_CLI, f), 'utf8')));
    expect(mapped).toContain('main.js');
    for (const f of mapped) {
      expect(readFileSync(join(DIST_CLI, f), 'utf8'), f).toMatch(new RegExp(`\\n//# sourceMappingURL=${f.replaceAll('.', '\\.')}\\.map\\n?$`));
      const map = JSON.parse(readFileSync(join(DIST_CLI, `${f}.map`), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(map.sources.length, f).toBeGreaterThan(0);
      expect(map.sourcesContent?.length, f).toBe(map.sources.length);
      map.sources.forEach((source, i) => {
        const file = relative(ROOT, resolve(DIST_CLI, source));
        expect(file, `${f}: ${source}`).toMatch(new RegExp(`^(src/.*\\.ts|node_modules/(${INLINED.join('|')})/.*)$`));
        // What the map carries is the file it names: the source as it was built.
        if (file.startsWith('src/')) expect(map.sourcesContent![i], `${f}: ${source}`).toBe(readFileSync(join(ROOT, file), 'utf8'));
        else expect(map.sourcesContent![i], `${f}: ${source}`).toEqual(expect.any(String));
      });
    }
  });

  it('an internal error prints a stack in terms of the sources: src/ files and lines, no frame in the bundle', async () => {
    built();
    // A fault from outside, as a broken stream would give (no hook in the product): stdout's write throws, and
    // `assay run` meets it printing its report, an error it has no handling for.
    const refuse = 'process.stdout.write = function refuse() { throw new TypeError("stdout refused the write"); };';
    const r = await runCliProcess(['run', tmp.config('internal.yaml', PLAIN), '--store', join(tmp.dir(), 'internal.db'), '--no-progress'], {
      built: true,
      nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(refuse)}`],
    });
    expect(r.err).toMatch(/^assay: internal error: TypeError: stdout refused the write$/m);
    expect(r.code).toBe(3);
    const frames = r.err.split('\n').filter((l) => /^\s+at /.test(l));
    expect(frames.filter((l) => l.includes(`${DIST_CLI}/`) || l.includes('dist/cli/'))).toEqual([]);
    const sources = frames.map((l) => /\((\/[^()]+\.ts):(\d+):(\d+)\)$/.exec(l)).filter((m) => m !== null);
    expect(sources.map((m) => relative(ROOT, m[1]))).toEqual(expect.arrayContaining(['src/cli/main.ts']));
    // The frame below the throwing write is the line of the sources that wrote: the map's lines are the sources' lines.
    const caller = /\((\/[^()]+\.ts):(\d+):(\d+)\)$/.exec(frames[1]);
    expect(caller, frames.join('\n')).not.toBeNull();
    expect(relative(ROOT, caller![1])).toMatch(/^src\//);
    expect(readFileSync(caller![1], 'utf8').split('\n')[Number(caller![2]) - 1]).toMatch(/\.write\(/);
  });
});

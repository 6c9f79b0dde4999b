import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StoreError } from './store/errors.js';
import { ArgumentError, AssayError, ExitCode, importOptional, MissingPackageError, UsageError } from './errors.js';
import { GroundingRequestError, GroundingUnavailableError } from './ground/types.js';
import { ProviderError } from './providers/types.js';
import { ReportWriteError } from './report/write.js';
import { SandboxError } from './sandbox/errors.js';
import { DuplicateSampleError, UnknownRunError } from './store/validate.js';
import { CheckOptionError } from './validators/builtin.js';
import { TaskFailedError } from './ground/pool/pool.js';
import { RegexOptionError } from './validators/regex.js';
import { InterruptedError } from './validators/interruptible.js';
import { PredicateResultError } from './validators/sandboxed.js';
import { ReliabilityError } from './vitest/index.js';

const SRC = import.meta.dirname;
const ROOT = resolve(SRC, '..');

type ErrorClass = (abstract new (...args: never[]) => Error) & { isInstance(err: unknown): boolean };

/** Every error class assay throws, the module that exports it, and how to make one. */
const CLASSES: Record<string, [module: string, make: (C: never) => Error]> = {
  AssayError: ['errors.ts', (C: new (m: string, c: number) => Error) => new C('x', 3)],
  UsageError: ['errors.ts', (C: new (m: string) => Error) => new C('x')],
  ArgumentError: ['errors.ts', (C: new (m: string, w: { key: string }) => Error) => new C('x', { key: 'level' })],
  MissingPackageError: ['errors.ts', (C: new (p: string, f: string) => Error) => new C('pdfjs-dist', 'PDF ingest')],
  StoreError: ['store/errors.ts', (C: new (m: string) => Error) => new C('x')],
  DuplicateSampleError: ['store/errors.ts', (C: new (r: string, i: number, j: number) => Error) => new C('r1', 0, 0)],
  UnknownRunError: ['store/errors.ts', (C: new (r: string) => Error) => new C('r1')],
  NoStoreError: ['store/errors.ts', (C: new (s: string, m: string) => Error) => new C('x.db', 'x')],
  GradeError: ['store/errors.ts', (C: new (m: string) => Error) => new C('x')],
  OutageError: ['store/outage.ts', (C: new (m: string, s: string) => Error) => new C('x', 'the store')],
  ProviderError: ['providers/provider-error.ts', (C: new (k: string, m: string) => Error) => new C('server', 'x')],
  SandboxError: ['sandbox/errors.ts', (C: new (k: string, m: string) => Error) => new C('thrown', 'x')],
  PoolOverloadedError: ['ground/pool/pool.ts', (C: new (m: string) => Error) => new C('x')],
  WorkerCrashedError: ['ground/pool/pool.ts', (C: new (m: string, oom: boolean) => Error) => new C('x', false)],
  PoolUnavailableError: ['ground/pool/pool.ts', (C: new (m: string) => Error) => new C('x')],
  TaskFailedError: ['ground/pool/pool.ts', (C: new (e: { name: string; message: string }) => Error) => new C({ name: 'RangeError', message: 'x' })],
  GroundingRequestError: ['ground/types.ts', (C: new (m: string, s: number) => Error) => new C('x', 400)],
  GroundingUnavailableError: ['ground/types.ts', (C: new (m: string) => Error) => new C('x')],
  ReportWriteError: ['report/write.ts', (C: new (m: string) => Error) => new C('x')],
  QueueError: ['queue/connection.ts', (C: new (m: string) => Error) => new C('x')],
  CheckOptionError: ['validators/builtin.ts', (C: new (f: string, m: string) => Error) => new C('pattern', 'x')],
  RegexOptionError: ['validators/regex.ts', (C: new (f: string, m: string) => Error) => new C('pattern', 'x')],
  InterruptedError: ['validators/interruptible.ts', (C: new (h: Promise<void>) => Error) => new C(Promise.resolve())],
  PredicateResultError: ['validators/sandboxed.ts', (C: new (m: string) => Error) => new C('x')],
  TrajectoryCheckError: ['validators/trajectory-checks.ts', (C: new (m: string) => Error) => new C('x')],
  OtlpError: ['otel/otlp.ts', (C: new (m: string) => Error) => new C('x')],
  ReliabilityError: ['vitest/index.ts', (C: new (m: string) => Error) => new C('x')],
};

/** `class X extends Y` of every source file (tests and test support aside), as X → Y. */
function classBases(): Map<string, string> {
  const bases = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'testing') walk(p);
      } else if (/\.ts$/.test(e.name) && !/\.(test|case)\.ts$/.test(e.name)) {
        for (const m of readFileSync(p, 'utf8').matchAll(/^export (?:abstract )?class (\w+) extends (\w+)/gm)) bases.set(m[1], m[2]);
      }
    }
  };
  walk(SRC);
  return bases;
}

/** The classes of one copy of assay's modules: this one (Vitest's module graph), or another loaded by tsx, as a config's import is. */
async function classesOf(load: (module: string) => Promise<Record<string, unknown>>): Promise<Map<string, ErrorClass>> {
  const out = new Map<string, ErrorClass>();
  for (const [name, [module]] of Object.entries(CLASSES)) out.set(name, (await load(module))[name] as ErrorClass);
  return out;
}

describe('errors', () => {
  it('every error assay raises on purpose is an AssayError carrying its exit code', () => {
    const cases: [Error, number][] = [
      [new UsageError('bad flag'), ExitCode.USAGE],
      [new ArgumentError('level must be in (0, 1), got 95', { key: 'level' }), ExitCode.USAGE],
      [new MissingPackageError('pdfjs-dist', 'PDF ingest'), ExitCode.USAGE],
      [new CheckOptionError('pattern', 'bad regex'), ExitCode.USAGE],
      [new RegexOptionError('pattern', 'bad regex'), ExitCode.USAGE],
      [new PredicateResultError('predicate returned a string, expected a boolean'), ExitCode.USAGE],
      [new GroundingRequestError('empty answer', 422), ExitCode.USAGE],
      [new UnknownRunError('r1'), ExitCode.USAGE],
      [new StoreError('cannot open'), ExitCode.INTERNAL],
      [new ReportWriteError('disk full'), ExitCode.INTERNAL],
      [new GroundingUnavailableError('llm down'), ExitCode.INTERNAL],
      [new ProviderError('connection', 'ECONNREFUSED'), ExitCode.INTERNAL],
      [new SandboxError('disposed', 'gone'), ExitCode.INTERNAL],
      [new DuplicateSampleError('r1', 0, 0), ExitCode.INTERNAL],
      [new TaskFailedError({ name: 'Error', message: 'boom' }), ExitCode.INTERNAL],
      [new ReliabilityError('rule: FAIL'), ExitCode.VERDICT_FAILED],
      [new InterruptedError(Promise.resolve()), ExitCode.INTERRUPTED],
    ];
    for (const [err, code] of cases) {
      expect(AssayError.isInstance(err), err.name).toBe(true);
      expect((err as AssayError).exitCode, err.name).toBe(code);
      expect(err.name, err.constructor.name).toBe(err.constructor.name);
    }
    expect(new ArgumentError('x', { key: 'level' }).where).toEqual({ key: 'level' });
    expect(new UsageError('x', { key: 'runId' }).where).toEqual({ key: 'runId' });
  });

  it('retryable is decided where the error is made: false unless said, one field for every class', () => {
    expect(new AssayError('x', ExitCode.INTERNAL).retryable).toBe(false);
    expect(new StoreError('cannot open').retryable).toBe(false);
    expect(new StoreError('connection terminated', { retryable: true }).retryable).toBe(true);
    expect(new ProviderError('rate_limit', '429').retryable).toBe(true);
    expect(new ProviderError('client', '400').retryable).toBe(false);
    expect(new ProviderError('server', '501', { retryable: false }).retryable).toBe(false);
    expect('transient' in new ProviderError('server', '500')).toBe(false);
    expect('isRetryable' in new ProviderError('server', '500')).toBe(false);
  });

  it('the table below names every error class in src, and each is an AssayError', () => {
    const bases = classBases();
    const reaches = (c: string): boolean => c === 'AssayError' || (bases.has(c) && reaches(bases.get(c)!));
    const assays = [...bases.keys()].filter(reaches);
    expect(new Set([...assays, 'AssayError'])).toEqual(new Set(Object.keys(CLASSES)));
    // No other error hierarchy: AssayError is the only class built on a JavaScript error.
    const builtins = [...bases].filter(([, base]) => /^(Error|TypeError|RangeError|SyntaxError|AggregateError)$/.test(base)).map(([c]) => c);
    expect(builtins).toEqual(['AssayError']);
  });

  it('isInstance answers for its class and the classes below it, never a sibling, whichever copy of assay made the error', async () => {
    const { tsImport } = await import('tsx/esm/api');
    const mine = await classesOf((m) => import(/* @vite-ignore */ `./${m.replace(/\.ts$/, '.js')}`));
    // tsx loads the files again outside Vitest's module graph: other class identities, the same markers.
    const theirs = await classesOf((m) => tsImport(pathToFileURL(join(SRC, m)).href, import.meta.url) as Promise<Record<string, unknown>>);
    for (const [name, [module, make]] of Object.entries(CLASSES)) {
      const C = mine.get(name)!;
      const own = make(C as never);
      const other = make(theirs.get(name)! as never);
      expect(other instanceof C, `${name} from another copy (${relative(ROOT, join(SRC, module))})`).toBe(false);
      expect(own.name).toBe(name);
      expect(Object.hasOwn(C, 'isInstance'), `${name} has its own static isInstance`).toBe(true);
      const marker = Symbol.for(`assay.${name}`);
      expect(Object.getOwnPropertySymbols(own), `${name} carries its own marker`).toContain(marker);
      expect(Object.prototype.propertyIsEnumerable.call(own, marker)).toBe(false);
      expect(AssayError.isInstance(own) && AssayError.isInstance(other), name).toBe(true);
      for (const [name2, D] of mine) {
        // Within one copy the class hierarchy decides; across copies the markers must say the same.
        const expected = own instanceof D;
        expect(D.isInstance(own), `${name2}.isInstance(new ${name})`).toBe(expected);
        expect(D.isInstance(other), `${name2}.isInstance(another copy's ${name})`).toBe(expected);
      }
    }
    expect(UsageError.isInstance(new StoreError('x'))).toBe(false);
    expect(StoreError.isInstance(new UsageError('x'))).toBe(false);
    expect(UsageError.isInstance(new ArgumentError('x', { key: 'level' }))).toBe(false);
    expect(UsageError.isInstance(new MissingPackageError('p', 'f'))).toBe(true);
    for (const notOurs of [new Error('x'), new RangeError('x'), { name: 'UsageError', message: 'x' }, null, undefined, 'UsageError'])
      expect(AssayError.isInstance(notOurs)).toBe(false);
  });

  it("lint refuses instanceof on assay's errors and bare RangeError/TypeError in library code; instanceof Error passes", async () => {
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({ cwd: ROOT });
    const flagged = async (code: string, file: string) =>
      (await eslint.lintText(code, { filePath: join(ROOT, file) }))[0].messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.line);
    const code = [
      "import * as errors from './errors.js';",
      "import { UsageError } from './errors.js';",
      'export function f(err: unknown): number {',
      '  if (err instanceof UsageError) return 1;',
      '  if (err instanceof errors.StoreError) return 2;',
      '  if (err instanceof Error || err instanceof TypeError) return 3;',
      "  if (UsageError.isInstance(err)) throw new RangeError('n must be ≥ 0');",
      "  throw new errors.ArgumentError('n must be ≥ 0', { key: 'n' });",
      '}',
      '',
    ].join('\n');
    expect(await flagged(code, 'src/lint-probe.ts')).toEqual([4, 5, 7]);
    // A test may throw what it likes, but tells assay's errors apart as the code does.
    expect(await flagged(code, 'src/lint-probe.test.ts')).toEqual([4, 5]);
  });

  it('a missing optional package is named with its install command; any other failure to load is kept', async () => {
    const missing = importOptional('assay-no-such-package', 'the test feature', () => import('assay-no-such-package' as string));
    await expect(missing).rejects.toThrow(MissingPackageError);
    await expect(missing).rejects.toThrow(
      'the test feature needs the optional package assay-no-such-package, which is not installed: install it with npm install assay-no-such-package',
    );
    const broken = new Error('boom');
    await expect(importOptional('yaml', 'x', () => Promise.reject(broken))).rejects.toBe(broken);
    // A package that is there but misses one of its own dependencies is not reported as itself missing.
    const inner = Object.assign(new Error("Cannot find package 'other' imported from /x/node_modules/yaml/index.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importOptional('yaml', 'x', () => Promise.reject(inner))).rejects.toBe(inner);
    expect(await importOptional('yaml', 'x', () => import('yaml'))).toHaveProperty('parse');
  });
});

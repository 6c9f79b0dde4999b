import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A throwaway Vitest project for tests of assay/vitest: test files written into a temp folder (importing
 * this checkout's src/vitest by path, its node_modules linked in), run by a real `vitest` in a child process.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
/** Import specifiers of this checkout's modules, for fixture files. */
export const SRC = {
  vitest: join(ROOT, 'src/vitest/index.ts'),
  matchers: join(ROOT, 'src/vitest/matchers.ts'),
  reporter: join(ROOT, 'src/vitest/reporter.ts'),
  /** A generateText-shaped result, as the AI SDK gives it (an agent's steps, tool calls and results). */
  aiSdkResult: join(ROOT, 'src/core/testing/ai-sdk-result.ts'),
};

export interface VitestRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Vitest's JSON report: test file → test title → { status, failureMessages }. */
  tests: Map<string, { status: string; failureMessages: string[] }>;
}

export interface FixtureProject {
  dir: string;
  write(name: string, body: string): string;
  /** `configReporters`: no --reporter flags, the project's vitest config decides (then `tests` stays empty). */
  run(args?: string[], env?: NodeJS.ProcessEnv, options?: { configReporters?: boolean }): Promise<VitestRun>;
  /** Start `vitest --watch` (the caller stops it with stop()). */
  watch(env?: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; stop: () => void };
  remove(): void;
}

/** The environment without the outer Vitest's own variables (the child sets its own). */
function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VITEST|TEST$|ASSAY_|GITHUB_)/.test(k)));
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
}

export function fixtureProject(prefix = 'assay-vitest-'): FixtureProject {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const write = (name: string, body: string) => {
    const file = join(dir, name);
    writeFileSync(file, body);
    return file;
  };
  return {
    dir,
    write,
    run: (args = [], env = {}, options = {}) =>
      new Promise((done, fail) => {
        const json = join(dir, `report-${Date.now()}.json`);
        const child = spawn(
          process.execPath,
          [
            VITEST,
            'run',
            '--root',
            dir,
            ...(options.configReporters ? [] : ['--reporter=default', `--reporter=${SRC.reporter}`, '--reporter=json', `--outputFile.json=${json}`]),
            ...args,
          ],
          { cwd: dir, env: cleanEnv(env) },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', fail);
        child.on('close', (code) => {
          const tests = new Map<string, { status: string; failureMessages: string[] }>();
          try {
            const report = JSON.parse(readFileSync(json, 'utf8')) as {
              testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
            };
            for (const f of report.testResults)
              for (const t of f.assertionResults) tests.set(t.fullName, { status: t.status, failureMessages: t.failureMessages });
          } catch {
            // no report: the caller sees the exit code and output
          }
          done({ code, stdout, stderr, tests });
        });
      }),
    watch: (env = {}) => {
      const child = spawn(process.execPath, [VITEST, '--watch', '--root', dir, '--reporter=default', `--reporter=${SRC.reporter}`], {
        cwd: dir,
        env: cleanEnv(env),
      });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      return { child, output: () => out, stop: () => child.kill('SIGTERM') };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Resolves once `test(output())` holds; rejects after `limitMs` (generous: it only catches a hang). */
export async function waitFor(output: () => string, test: (s: string) => boolean, limitMs = 120_000): Promise<void> {
  const start = Date.now();
  while (!test(output())) {
    if (Date.now() - start > limitMs) throw new Error(`gave up waiting; output so far:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

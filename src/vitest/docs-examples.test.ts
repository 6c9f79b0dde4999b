import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, ROOT, SRC, type FixtureProject, type VitestRun } from './testing/project.js';

// docs/vitest.md's code samples run as written (assay/vitest imported from this checkout) in a real Vitest, and
// the output each shows is the output it prints. The counterpart of src/cli/docs-examples.test.ts.

const md = readFileSync(join(ROOT, 'docs/vitest.md'), 'utf8');

/** The fenced blocks of the doc in a language (`''` for plain ones), in order: fences read open, close, open… */
function blocks(lang: string): string[] {
  const out: string[] = [];
  let open: { lang: string; lines: string[] } | undefined;
  for (const line of md.split('\n')) {
    const fence = /^```(\w*)$/.exec(line);
    if (!fence) open?.lines.push(line);
    else if (!open) open = { lang: fence[1], lines: [] };
    else {
      if (open.lang === lang) out.push(open.lines.join('\n') + '\n');
      open = undefined;
    }
  }
  return out;
}
const tsBlocks = blocks('ts');
const outputs = blocks('');
/** The first ts block whose first line is `// <file>`. */
const sample = (file: string) => {
  const b = tsBlocks.find((x) => x.startsWith(`// ${file}\n`));
  if (!b) throw new Error(`docs/vitest.md: no \`\`\`ts block starting "// ${file}"`);
  return b;
};
const asWritten = (code: string) => code.replaceAll("'assay/vitest/matchers'", `'${SRC.matchers}'`).replaceAll("'assay/vitest'", `'${SRC.vitest}'`);
/** Vitest's lines without their timings ("✓ short 8ms" → "✓ short"). */
const untimed = (s: string) => s.replace(/ \d+ms$/gm, '');

let project: FixtureProject;
let first: VitestRun;
let sequential: VitestRun;
let matchers: VitestRun;

beforeAll(async () => {
  project = fixtureProject('assay-docs-vitest-');
  const store = { ASSAY_STORE: join(project.dir, 'runs.db') };
  const bot = sample('support-bot.test.ts');
  project.write('support-bot.test.ts', asWritten(bot));
  first = await project.run(['support-bot.test.ts'], store);
  // The sequential variant the doc describes: the same block with `stopping: 'sequential'` added.
  project.write('sequential.test.ts', asWritten(bot).replace('  samples: 30,\n', "  samples: 30,\n  stopping: 'sequential',\n"));
  sequential = await project.run(['sequential.test.ts'], store);
  project.write('vitest.config.mts', asWritten(sample('vitest.config.mts')));
  project.write('answers.test.ts', asWritten(sample('answers.test.ts')));
  // A longer per-test limit than Vitest's 5 s: the samples are run as written, but on a loaded machine 20 draws may take longer.
  matchers = await project.run(['answers.test.ts', '--testTimeout', '60000'], store);
}, 180_000);
afterAll(() => project?.remove());

describe('docs/vitest.md', () => {
  it('the install line covers every package the samples import', () => {
    const installed = /^npm i -D (.+)$/m.exec(md)![1].split(/\s+/);
    const imported = tsBlocks.flatMap((b) => [...b.matchAll(/^import .*?['"]([^'"]+)['"];?$/gm)].map((m) => m[1]));
    expect(imported.length).toBeGreaterThan(0);
    for (const spec of imported) expect(installed, spec).toContain(spec.split('/')[0]);
  });

  it('the first sample prints the output shown under it', () => {
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const shown = outputs[0].trimEnd().split('\n');
    const tests = shown.slice(0, shown.indexOf(''));
    const failure = shown.slice(shown.indexOf('') + 1);
    expect(untimed(first.stdout)).toContain(tests.join('\n'));
    expect(first.stderr).toContain(failure.join('\n'));
  });

  it("the sequential variant's message is the one shown", () => {
    expect(sequential.code).toBe(1);
    const shown = outputs.find((o) => o.includes('(95% CS, inputs run)'))!;
    expect(sequential.stderr).toContain(shown.trimEnd());
  });

  it('the matcher samples pass as written, with the matchers from setupFiles (no test file imports them)', () => {
    expect(sample('answers.test.ts')).not.toContain('assay/vitest/matchers');
    expect(matchers.code, matchers.stdout + matchers.stderr).toBe(0);
    expect(matchers.tests.get('one answer')?.status).toBe('passed');
    expect(matchers.tests.get('answers stay short, reliably')?.status).toBe('passed');
  });

  it("the tsconfig line is the example project's, which the smoke test type-checks (scripts/smoke-pack.sh)", () => {
    const shown = JSON.parse(blocks('json')[0]) as { compilerOptions: { types: string[] } };
    const example = readFileSync(join(ROOT, 'examples/vitest/tsconfig.json'), 'utf8');
    const types = /"types":\s*(\[[^\]]*\])/.exec(example)![1];
    expect(shown.compilerOptions.types).toEqual(JSON.parse(types));
  });
});

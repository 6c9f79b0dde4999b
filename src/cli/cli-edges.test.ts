import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

// Issue 12 item 6: the CLI's edges as a user meets them.

const tmp = useConfigDir('assay-cli-edges-');
const cli = (...args: string[]) => captureCli(args);

/** A config whose one rule passes 3 of 4 outputs (seeded), against minSuccess `min`. */
const exp = (name: string, min: number, samples = 20, verdict = 'point') => `name: ${name}
system: { simulated: { seed: 3, outputs: [{ text: "ok", weight: 3 }, { text: "not ok at all", weight: 1 }] } }
inputs: ["a", "b"]
samples: ${samples}
verdict: ${verdict}
validators:
  - { name: short, predicate: "o => o.length < 5", minSuccess: ${min} }
`;

async function inDir<T>(dir: string, f: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  process.chdir(dir);
  try {
    return await f();
  } finally {
    process.chdir(before);
  }
}

/** The run id `assay run` announced on stderr. */
const runIdOf = (err: string) => /run (\S+): \d+ inputs/.exec(err)![1];

describe('assay run without a config argument', () => {
  it('runs ./assay.yaml, or ./assay.config.ts, and refuses none or two with exit 2', async () => {
    const dir = join(tmp.dir(), 'project');
    mkdirSync(dir, { recursive: true });
    await inDir(dir, async () => {
      const none = await cli('run', '--no-progress');
      expect(none.code).toBe(2);
      expect(none.err).toMatch(
        /assay run: expected a config file: none given, and no assay\.yaml or assay\.yml or assay\.config\.ts in .*project \(assay init writes one\)/,
      );
      tmp.config('project/assay.yaml', exp('from-yaml', 0.5));
      const yaml = await cli('run', '--no-progress');
      expect(yaml.code).toBe(0);
      expect(yaml.out).toContain('from-yaml');
      expect(existsSync(join(dir, '.assay', 'assay.db'))).toBe(true);
      tmp.config(
        'project/assay.config.ts',
        `export default ${JSON.stringify({ name: 'from-ts', system: { simulated: { outputs: ['ok'] } }, inputs: ['a'], validators: [{ name: 'v', predicate: 'o => true', minSuccess: 0.5 }] })};\n`,
      );
      const two = await cli('run', '--no-progress');
      expect(two.code).toBe(2);
      expect(two.err).toMatch(/found assay\.yaml and assay\.config\.ts here; name the one to run/);
    });
    const tsOnly = join(tmp.dir(), 'ts-project');
    mkdirSync(tsOnly, { recursive: true });
    // 6 of 6 passes show 0.5 at 95% (lower bound 54%): a confident pass (one output alone would be inconclusive).
    tmp.config(
      'ts-project/assay.config.ts',
      `export default { name: 'from-ts', system: { simulated: { outputs: ['ok'] } }, inputs: ['a'], samples: 6, validators: [{ name: 'v', predicate: (o: string) => o === 'ok', minSuccess: 0.5 }] };\n`,
    );
    const ts = await inDir(tsOnly, () => cli('run', '--no-progress'));
    expect(ts.code).toBe(0);
    expect(ts.out).toContain('from-ts');
  });
});

describe('run ids: latest and unique prefixes, wherever a run id is taken', () => {
  it('show, compare, plan --run and run --resume accept "latest" and a unique prefix; an ambiguous or unknown one is exit 2', async () => {
    const store = join(tmp.dir(), 'ids.db');
    const a = await cli('run', tmp.config('a.yaml', exp('ids', 0.5)), '--store', store, '--no-progress');
    const b = await cli('run', tmp.config('b.yaml', exp('ids', 0.5)), '--store', store, '--no-progress');
    const [idA, idB] = [runIdOf(a.err), runIdOf(b.err)];
    expect(idA).not.toBe(idB);

    const latest = await cli('show', 'latest', '--store', store);
    expect(latest.out).toContain(`run ${idB}`);
    // The shortest prefix that tells the two apart.
    let n = 1;
    while (idA.slice(0, n) === idB.slice(0, n)) n++;
    const byPrefix = await cli('show', idA.slice(0, n), '--store', store);
    expect(byPrefix.out).toContain(`run ${idA}`);
    const ambiguous = await cli('show', idA.slice(0, n - 1), '--store', store);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.err).toMatch(new RegExp(`"${idA.slice(0, n - 1)}" starts 2 run ids \\(${idB}, ${idA}\\); give more of the id`));
    const unknown = await cli('show', 'zzz', '--store', store);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/no run with id "zzz" \(or an id starting so\) in the store/);

    const compared = await cli('compare', idA.slice(0, n), 'latest', '--store', store);
    expect(compared.code).toBe(0);
    expect(compared.out).toContain(idA);
    const plan = await cli('plan', '--run', 'latest', '--store', store, '--json');
    expect(JSON.parse(plan.out).run_id).toBe(idB);

    const s = openSqliteStore(store);
    await s.runs.setStatus(idB, 'interrupted');
    await s.close();
    const resumed = await cli('run', '--resume', 'latest', '--store', store, '--no-progress');
    expect(resumed.err).toContain(`run ${idB}: 2 inputs × 20 samples`);
    expect(resumed.err).toContain('resuming: 40 of 40 samples already stored');
  });
});

describe('assay show', () => {
  it("exits with the verdict's code, so a stored run can gate CI", async () => {
    const store = join(tmp.dir(), 'show.db');
    const pass = await cli('run', tmp.config('pass.yaml', exp('gate', 0.5)), '--store', store, '--no-progress');
    const fail = await cli('run', tmp.config('fail.yaml', exp('gate', 0.99)), '--store', store, '--no-progress');
    expect([pass.code, fail.code]).toEqual([0, 1]);
    expect((await cli('show', runIdOf(pass.err), '--store', store)).code).toBe(0);
    expect((await cli('show', runIdOf(fail.err), '--store', store)).code).toBe(1);
    const s = openSqliteStore(store);
    await s.runs.setStatus(runIdOf(pass.err), 'interrupted');
    await s.close();
    const interrupted = await cli('show', runIdOf(pass.err), '--store', store);
    expect(interrupted.code).toBe(130);
    // The resume hint names the store it was shown from.
    expect(interrupted.out).toContain(`resume with: assay run --resume ${runIdOf(pass.err)} --store ${store}`);
  });
});

describe('--help', () => {
  it('commands whose exit codes go beyond 0 and 2 list them; run-id arguments say they take "latest" and a prefix', async () => {
    for (const cmd of ['run', 'show', 'compare', 'guard', 'worker']) {
      const r = await captureCli([cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.out, cmd).toMatch(/Exit codes: 0 /);
    }
    expect((await captureCli(['show', '--help'])).out).toMatch(/130 the run is\s+interrupted/);
    expect((await captureCli(['guard', '--help'])).out).toMatch(/3 the system could not be called/);
    const compare = (await captureCli(['compare', '--help'])).out;
    expect(compare).toMatch(/runA +baseline run: its id, "latest", or the start of an id/);
    expect(compare).toMatch(/runB +candidate run: its id, "latest", or the start of an id/);
  });
});

describe('terminal wording', () => {
  it('an inconclusive verdict says how many more samples; inputs and samples are numbered from 1', async () => {
    const r = await cli('run', tmp.config('inc.yaml', exp('inc', 0.65, 10, 'confident')), '--store', join(tmp.dir(), 'inc.db'), '--no-progress');
    // The count of further samples is said with its unit, never as a bare "(~N MORE)".
    expect(r.out).toMatch(/INCONCLUSIVE/);
    expect(r.out).toMatch(/~\d+ more samples decide it with 80% probability/);
    expect(r.out).not.toMatch(/MORE\)/);
    // Two inputs: the IRP extremes are #1 and #2, never #0.
    expect(r.out).toMatch(/IRP \(per input\) .* min [\d.]+% \(#[12]\) {2}max [\d.]+% \(#[12]\)/);
    expect(r.out).toMatch(/ORP \(per sample\) .* \(#([1-9]|10)\) .* \(#([1-9]|10)\)/);
    expect(r.out).not.toMatch(/\(#0\)|input +#0/);
  });
});

describe('grounding commands without --kb', () => {
  it('use .assay/kb, as the docs do: kb ingest, kb info and analyze', async () => {
    const dir = join(tmp.dir(), 'kb-project');
    mkdirSync(dir, { recursive: true });
    tmp.config('kb-project/note.txt', 'Photosynthesis turns light into chemical energy in plants.\n');
    await inDir(dir, async () => {
      const ingest = await cli('kb', 'ingest', 'note.txt');
      expect(ingest.code).toBe(0);
      expect(ingest.out).toMatch(/^\.assay\/kb: 1 documents/);
      expect(existsSync(join(dir, '.assay', 'kb'))).toBe(true);
      const info = await cli('kb', 'info');
      expect(JSON.parse(info.out).embedder.kind).toBe('lexical');
      const analyzed = await cli(
        'analyze',
        '--query',
        'What does photosynthesis do?',
        '--answer',
        'Photosynthesis turns light into chemical energy.',
        '--json',
      );
      expect(analyzed.code).toBe(0);
      expect(JSON.parse(analyzed.out).claims_analysis).toHaveLength(1);
    });
  });
});

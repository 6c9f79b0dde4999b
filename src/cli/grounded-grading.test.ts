import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditedClaims, type AuditedClaim } from '../ground/grading.js';
import { runAuditBatch } from '../grades/audits.js';
import type { JsonReport } from '../report/json.js';
import { openStore } from '../store/open.js';
import type { AuditClaimRecord } from '../store/types.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';
import { runCliProcess } from './testing/process.js';

/**
 * The `grounded` rule of an experiment graded per claim (issue 27, item 5): examples/grounded run offline, its
 * per-claim audits kept with the run, made an audit batch by `assay audits import --run` (once, however often it
 * is asked), graded by people from a file and in the terminal, and the detector's alignment with them and the
 * corrected unsupported rate shown by `assay show <run>` and `assay audits show --json`.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
(addFormatsModule as unknown as (a: Ajv) => Ajv)(ajv);
const validReport = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'report.schema.json'), 'utf8')) as object);
const tmp = useConfigDir('assay-grounded-grading-');
let ex = '';
let db = '';
let runId = '';

beforeAll(async () => {
  ex = tmp.dir();
  cpSync('examples/grounded/docs', join(ex, 'docs'), { recursive: true });
  writeFileSync(join(ex, 'grounded.yaml'), readFileSync('examples/grounded/grounded.yaml', 'utf8').replace('samples: 30', 'samples: 5'));
  expect((await captureCli(['kb', 'ingest', join(ex, 'docs'), '--kb', join(ex, 'kb')])).code).toBe(0);
  db = join(ex, 'assay.db');
  const json = join(ex, 'report.json');
  const r = await captureCli(['run', join(ex, 'grounded.yaml'), '--store', db, '--json', json, '--no-progress']);
  expect([0, 1], r.err).toContain(r.code);
  runId = (JSON.parse(readFileSync(json, 'utf8')) as JsonReport).runId;
}, 120_000);

/** What a careful person says of a claim of this example: the KB's figures and facts, nothing else. */
const personSays = (text: string) => !/60 days|five minutes|IP68|under water/.test(text);
const detectorSays = (c: AuditClaimRecord) => c.status === 'STRONG' || c.status === 'WEAK';

async function storedClaims(auditId: string): Promise<AuditClaimRecord[]> {
  await using store = await openStore(db, { readonly: true });
  return (await store.audits.get(auditId))!.claims;
}

describe('the grounded rule of a run, graded per claim', () => {
  it('audits import --run makes the run’s per-claim audits one batch, the same claims assay analyze finds in its outputs', async () => {
    const imp = await captureCli(['audits', 'import', '--run', runId, '--store', db]);
    expect(imp.code, imp.err).toBe(0);
    const auditId = imp.out.trim();
    expect(auditId).toMatch(/^a-\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(imp.err).toContain(`grounded rule of run ${runId}`);
    // asked again: the same batch, not a second one
    const again = await captureCli(['audits', 'import', '--run', runId, '--store', db]);
    expect(again.code, again.err).toBe(0);
    expect(again.out.trim()).toBe(auditId);
    expect(again.err).toMatch(new RegExp(`already stored as ${auditId}`));
    const list = await captureCli(['audits', 'list', '--store', db]);
    expect(list.out.trim().split('\n')).toHaveLength(1);
    expect(list.out).toContain(`run ${runId} grounded`);

    // the same outputs audited by assay analyze: the run kept exactly the claims, statuses and evidence it finds
    const answers: string[] = [];
    {
      await using store = await openStore(db, { readonly: true });
      const run = (await store.runs.get(runId))!;
      for (const s of await store.samples.list(runId)) answers.push(JSON.stringify({ id: `${s.i + 1},${s.j + 1}`, query: run.inputs[s.i], answer: s.output }));
    }
    expect(answers).toHaveLength(15);
    writeFileSync(join(ex, 'answers.jsonl'), answers.join('\n') + '\n');
    const batch = join(ex, 'batch.json');
    await captureCli(['analyze', '--kb', join(ex, 'kb'), '--answers', join(ex, 'answers.jsonl'), '--json', batch]);
    const analysed: AuditedClaim[] = auditedClaims(JSON.parse(readFileSync(batch, 'utf8')), batch);
    const claims = await storedClaims(auditId);
    const order = (a: { answer: string; claim: number }, b: { answer: string; claim: number }) =>
      a.answer === b.answer ? a.claim - b.claim : a.answer < b.answer ? -1 : 1;
    expect([...claims].sort(order)).toEqual([...analysed].sort(order));
    expect(claims.length).toBeGreaterThan(15);
    expect(new Set(claims.map((c) => c.status)).size).toBeGreaterThan(1);
  });

  it('grades from a file give the detector’s alignment and the corrected unsupported rate in assay show and JSON', async () => {
    const auditId = (await captureCli(['audits', 'import', '--run', runId, '--store', db])).out.trim();
    const claims = await storedClaims(auditId);
    // every claim graded: the corrected share is then exactly the people's share
    const grades = join(ex, 'grades.jsonl');
    writeFileSync(grades, claims.map((c) => JSON.stringify({ answer: c.answer, claim: c.claim, supported: personSays(c.text) })).join('\n') + '\n');
    const imp = await captureCli(['audits', 'import', '--run', runId, '--grades', grades, '--grader', 'ada', '--store', db]);
    expect(imp.code, imp.err).toBe(0);
    expect(imp.out.trim()).toBe(auditId);
    // importing the same grades again adds nothing
    const twice = await captureCli(['audits', 'import', '--run', runId, '--grades', grades, '--grader', 'ada', '--store', db]);
    expect(twice.code, twice.err).toBe(0);
    expect(twice.err).toMatch(/0 new grade\(s\)/);

    const count = (d: boolean, p: boolean) => claims.filter((c) => detectorSays(c) === d && personSays(c.text) === p).length;
    const [tp, fp, fn, tn] = [count(true, true), count(true, false), count(false, true), count(false, false)];
    expect(tp * tn).toBeGreaterThan(0);
    const shown = await captureCli(['audits', 'show', auditId, '--json', '--store', db]);
    expect(shown.code, shown.err).toBe(0);
    const g = JSON.parse(shown.out);
    expect(g).toMatchObject({ schema: 'assay-grounding-grading/1', run: { id: runId, rule: 'grounded' }, claims: claims.length, graded: claims.length });
    expect(g.alignment).toMatchObject({ tp, fp, fn, tn });
    expect(g.unsupported_rate).toBeCloseTo((fn + tn) / claims.length, 12);
    expect(g.corrected_unsupported_rate.rate).toBeCloseTo((fp + tn) / claims.length, 12);
    expect(g.alignment.tpr.rate).toBeCloseTo(tp / (tp + fn), 12);
    expect(g.alignment.tnr.rate).toBeCloseTo(tn / (tn + fp), 12);

    // the run itself shows its grounded rule's grading beside its summary
    const run = await captureCli(['show', runId, '--store', db]);
    expect(run.out).toContain(`grounded: claims graded by people (audit batch ${auditId})`);
    expect(run.out).toContain(`${claims.length} of ${claims.length} audited claims graded by people`);
    expect(run.out).toMatch(new RegExp(`detector STRONG or WEAK\\s+${tp}\\s+${fp}\\n`));
    expect(run.out).toMatch(new RegExp(`detector UNSUPPORTED or CONTRADICTED\\s+${fn}\\s+${tn}\\n`));
    const report = JSON.parse((await captureCli(['show', runId, '--store', db, '--json', '-'])).out) as JsonReport;
    expect(report.validators.find((v) => v.name === 'grounded')!.claimGrading).toEqual([
      expect.objectContaining({ id: auditId, run: { id: runId, rule: 'grounded' }, graded: claims.length, alignment: g.alignment }),
    ]);
    expect(report.validators.find((v) => v.name === 'brief')).not.toHaveProperty('claimGrading');
    expect(validReport(report), JSON.stringify(validReport.errors)).toBe(true);
  });

  it('assay grade --audits <batch id> grades a run’s claims in the terminal, stored against the batch', async () => {
    // a run of its own, none of its claims graded yet
    writeFileSync(join(ex, 'small.yaml'), readFileSync(join(ex, 'grounded.yaml'), 'utf8').replace('samples: 5', 'samples: 2'));
    const json = join(ex, 'small.json');
    await captureCli(['run', join(ex, 'small.yaml'), '--store', db, '--json', json, '--no-progress']);
    const small = (JSON.parse(readFileSync(json, 'utf8')) as JsonReport).runId;
    const auditId = (await captureCli(['audits', 'import', '--run', small, '--store', db])).out.trim();
    const r = await runCliProcess(['grade', '--audits', auditId, '--store', db, '--grader', 'bob', '--seed', '5'], { cwd: ROOT, stdin: 'fpq' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/claim 1 of \d+ to grade — answer [1-3],[12], claim \d+\n/);
    expect(r.err).toContain(`2 grade(s) by bob stored in audit batch ${auditId}`);
    await using store = await openStore(db, { readonly: true });
    const stored = await store.audits.listGrades(auditId);
    expect(stored.map((x) => [x.grader, x.supported])).toEqual([
      ['bob', false],
      ['bob', true],
    ]);
    const shown = JSON.parse((await captureCli(['audits', 'show', auditId, '--json', '--store', db])).out);
    expect(shown).toMatchObject({ run: { id: small, rule: 'grounded' }, graded: 2 });
    expect(shown.alignment.tp + shown.alignment.fp + shown.alignment.fn + shown.alignment.tn).toBe(2);
  });

  it('a run’s batch imported again after more of the run was stored keeps the grades given on the earlier batch, claim by claim', async () => {
    const json = join(ex, 'again.json');
    await captureCli(['run', join(ex, 'small.yaml'), '--store', db, '--json', json, '--no-progress']);
    const again = (JSON.parse(readFileSync(json, 'utf8')) as JsonReport).runId;
    // as if imported while the run was going: the claims of its first outputs only, two of them graded
    let partial = '';
    let graded: AuditClaimRecord[] = [];
    {
      await using store = await openStore(db);
      const full = runAuditBatch((await store.runs.get(again))!, await store.samples.list(again));
      const made = await store.audits.create({ ...full, claims: full.claims.slice(0, 4) });
      partial = made.audit.id;
      graded = full.claims.slice(1, 3);
      await store.audits.recordGrades(partial, [
        { answer: graded[0].answer, claim: graded[0].claim, supported: false, grader: 'ada' },
        { answer: graded[1].answer, claim: graded[1].claim, supported: true, grader: 'bob' },
      ]);
    }
    const imp = await captureCli(['audits', 'import', '--run', again, '--store', db]);
    expect(imp.code, imp.err).toBe(0);
    const whole = imp.out.trim();
    expect(whole).not.toBe(partial);
    expect(imp.err).toContain("2 grade(s) carried over from the run's earlier batches");
    await using store = await openStore(db, { readonly: true });
    expect((await store.audits.listGrades(whole)).map((g) => [g.answer, g.claim, g.supported, g.grader])).toEqual([
      [graded[0].answer, graded[0].claim, false, 'ada'],
      [graded[1].answer, graded[1].claim, true, 'bob'],
    ]);
  });

  it('refuses what is not a run’s grounded rule, naming it (exit 2), and stores nothing', async () => {
    const before = (await captureCli(['audits', 'list', '--store', db])).out;
    // a run of the same store without a grounded rule
    writeFileSync(join(ex, 'plain.yaml'), readFileSync(join(ex, 'small.yaml'), 'utf8').replace(/ {2}- name: grounded[\s\S]*?(?= {2}- name: brief)/, ''));
    const json = join(ex, 'plain.json');
    await captureCli(['run', join(ex, 'plain.yaml'), '--store', db, '--json', json, '--no-progress']);
    const plain = (JSON.parse(readFileSync(json, 'utf8')) as JsonReport).runId;
    const cases: [string[], RegExp][] = [
      [['audits', 'import', '--run', plain], new RegExp(`run ${plain} kept no claims of a grounded rule`)],
      [['audits', 'import', '--run', 'nope'], /no run with id "nope"/],
      [
        ['audits', 'import', '--run', runId, '--rule', 'brief'],
        new RegExp(`run ${runId} has no grounded rule named "brief" that kept claims \\(it has: grounded\\)`),
      ],
      [['audits', 'import', join(ex, 'batch.json'), '--run', runId], /give the batch file or --run, not both/],
      [['audits', 'import'], /give the batch file .* or --run <runId>/],
      [['audits', 'import', join(ex, 'batch.json'), '--rule', 'grounded'], /--rule: names the grounded rule of --run/],
      [['grade', '--audits', 'a-20260101-000000-0000'], /--audits: no audit batch with id "a-20260101-000000-0000"/],
    ];
    for (const [args, message] of cases) {
      const r = await captureCli([...args, '--store', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
    }
    expect((await captureCli(['audits', 'list', '--store', db])).out).toBe(before);
  });
});

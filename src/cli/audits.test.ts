import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditedClaims, type AuditedClaim } from '../ground/grading.js';
import { main } from './main.js';

/**
 * Graded audits kept in the store (issue 27, item 5): a real `assay analyze --answers … --json` batch imported
 * with an id, its claim grades stored against it, and `assay audits show` printing the detector's alignment
 * with people and the corrected unsupported rate from the stored grades, in words and JSON.
 */
let root = '';
let batch = '';
let store = '';
let claims: AuditedClaim[] = [];

async function assay(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
  try {
    return { code: await main(args), out: out.join(''), err: err.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assay-audits-'));
  store = join(root, 'assay.db');
  await mkdir(join(root, 'docs'));
  await writeFile(
    join(root, 'docs', 'returns.md'),
    'Opened routers can be returned within 14 days of purchase with the receipt. Unopened routers can be returned within 30 days. After a firmware update the router reboots in two minutes.\n',
  );
  expect((await assay(['kb', 'ingest', join(root, 'docs'), '--kb', join(root, 'kb')])).code).toBe(0);
  await writeFile(
    join(root, 'answers.jsonl'),
    [
      {
        id: 'returns',
        query: 'Can I return it?',
        answer: 'Opened routers can be returned within 14 days of purchase with the receipt. Unopened routers can be returned within 60 days.',
      },
      { id: 'reboot', query: 'How long is a reboot?', answer: 'After a firmware update the router reboots in two minutes. The router is waterproof.' },
    ]
      .map((x) => JSON.stringify(x))
      .join('\n') + '\n',
  );
  batch = join(root, 'batch.json');
  await assay(['analyze', '--kb', join(root, 'kb'), '--answers', join(root, 'answers.jsonl'), '--json', batch]);
  claims = auditedClaims(JSON.parse(await readFile(batch, 'utf8')), batch);
}, 120_000);
afterAll(() => rm(root, { recursive: true, force: true }));

const supported = (c: AuditedClaim) => c.status === 'STRONG' || c.status === 'WEAK';

describe('assay audits', () => {
  it('imports a batch with its grades, and shows the alignment and corrected rate from the stored grades', async () => {
    expect(claims.length).toBeGreaterThanOrEqual(3);
    // people agree with the detector on every claim but the first
    const grades = claims.map((c, k) => ({ answer: c.answer, claim: c.claim, supported: k === 0 ? !supported(c) : supported(c), text: c.text, grader: 'ada' }));
    await writeFile(join(root, 'grades.jsonl'), grades.map((g) => JSON.stringify(g)).join('\n') + '\n');
    const imp = await assay(['audits', 'import', batch, '--grades', join(root, 'grades.jsonl'), '--store', store]);
    expect(imp.err).toContain(`(${claims.length} claims, ${claims.length} grade(s))`);
    expect(imp.code).toBe(0);
    const id = imp.out.trim();
    expect(id).toMatch(/^a-\d{8}-\d{6}-[0-9a-f]{4}$/);

    const listed = await assay(['audits', 'list', '--store', store]);
    expect(listed.out).toContain(id);
    expect(listed.out).toMatch(new RegExp(`${claims.length} claims`));

    const json = await assay(['audits', 'show', id, '--json', '--store', store]);
    expect(json.code).toBe(0);
    const s = JSON.parse(json.out);
    expect(s).toMatchObject({ id, name: 'batch.json', schema: 'assay-grounding-grading/1', claims: claims.length, graded: claims.length });
    const tp = claims.filter((c, k) => k > 0 && supported(c)).length;
    const tn = claims.filter((c, k) => k > 0 && !supported(c)).length;
    expect(s.alignment).toMatchObject({ tp, tn, fp: supported(claims[0]) ? 1 : 0, fn: supported(claims[0]) ? 0 : 1 });
    // every claim graded: the corrected share is the people's own share of unsupported claims
    const peopleUnsupported = grades.filter((g) => !g.supported).length / claims.length;
    expect(s.corrected_unsupported_rate.rate).toBeCloseTo(peopleUnsupported, 10);
    expect(s.unsupported_rate).toBeCloseTo(claims.filter((c) => !supported(c)).length / claims.length, 10);

    // assay show takes an audit id as well as a run id
    const shown = await assay(['show', id, '--json', '-', '--store', store]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toEqual(s);
    expect((await assay(['show', id, '--junit', join(root, 'x.xml'), '--store', store])).err).toMatch(/--junit: a run's option/);

    const text = await assay(['audits', 'show', id, '--store', store]);
    expect(text.out).toContain(`${claims.length} of ${claims.length} audited claims graded by people`);
    expect(text.out).toMatch(/corrected by the grades \d/);
  }, 60_000);

  it('shows a batch without grades, refuses grades of another batch naming the line, and names an unknown id (exit 2)', async () => {
    // another batch: the first answer's audit alone
    const one = join(root, 'one.json');
    const full = JSON.parse(await readFile(batch, 'utf8'));
    await writeFile(one, JSON.stringify({ ...full, results: full.results.slice(0, 1) }));
    const imp = await assay(['audits', 'import', one, '--name', 'second', '--store', store]);
    const id = imp.out.trim();
    const s = JSON.parse((await assay(['audits', 'show', id, '--json', '--store', store])).out);
    expect(s).toMatchObject({ name: 'second', graded: 0, corrected_unsupported_rate: null });

    const c = claims[1];
    await writeFile(
      join(root, 'wrong.jsonl'),
      `${JSON.stringify({ answer: c.answer, claim: c.claim, supported: true, grader: 'ada' })}\n{"answer":"returns","claim":99,"supported":true,"grader":"ada"}\n`,
    );
    const bad = await assay(['audits', 'import', batch, '--grades', join(root, 'wrong.jsonl'), '--store', store]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/wrong\.jsonl line 2.*claim 99/);
    expect((await assay(['audits', 'list', '--store', store])).out.trim().split('\n')).toHaveLength(2); // nothing stored

    // the same batch imported again, under any name: the batch already stored, named, and its grades not doubled
    const first = (await assay(['audits', 'list', '--store', store])).out.trim().split('\n')[1].split(' ')[0];
    const again = await assay(['audits', 'import', batch, '--name', 'third', '--grades', join(root, 'grades.jsonl'), '--store', store]);
    expect(again.code).toBe(0);
    expect(again.out.trim()).toBe(first);
    expect(again.err).toContain(`already stored as ${first} ("batch.json")`);
    expect(again.err).toMatch(/0 new grade\(s\)/);
    expect((await assay(['audits', 'list', '--store', store])).out.trim().split('\n')).toHaveLength(2);
    expect(JSON.parse((await assay(['audits', 'show', first, '--json', '--store', store])).out).graded).toBe(claims.length);

    // a bad batch or grades file leaves no store behind
    await writeFile(join(root, 'bad.json'), '{"schema": "other"}');
    const fresh = join(root, 'fresh', 'assay.db');
    expect((await assay(['audits', 'import', join(root, 'bad.json'), '--store', fresh])).code).toBe(2);
    expect((await assay(['audits', 'import', batch, '--grades', join(root, 'wrong.jsonl'), '--store', fresh])).code).toBe(2);
    expect(existsSync(fresh)).toBe(false);

    const none = await assay(['audits', 'show', 'a-nope', '--store', store]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/no audit batch with id "a-nope"/);
  }, 60_000);
});

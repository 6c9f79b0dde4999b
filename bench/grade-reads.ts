/**
 * `npm run bench:grade-reads [-- --grades 1000000 --backend sqlite,postgres --repeats 3 --pg postgres://…]`
 *
 * What a cold dashboard page or `assay show` pays to combine a run's grades (issue 30): a run of 2,000 inputs
 * × 10 samples × 2 rules with `--grades` grades (`--graders` people, default 50, each correcting themselves; a
 * fifth drawn at random; `--graders 0`: every grade by a different person, so every grade decides) in a fresh
 * SQLite file and a fresh PostgreSQL database (dropped after), then, alternated `--repeats` times in one
 * process, the two ways of reading them, each combined (grades/load.ts combineInParts): every grade
 * (`grades.pages`, as before) and only the grades that decide (`grades.decisive`, what loadGrading reads now).
 * Both results are checked equal. Prints JSON:
 * seconds to write the grades, and the median milliseconds of each way with the ratio.
 */
import { isDeepStrictEqual } from 'node:util';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { onFreshStore } from './fresh-store.js';
import { Outcome } from '../src/core/outcome.js';
import { combineInParts } from '../src/grades/load.js';
import { writeGradedFixture } from '../src/grades/testing/fixture.js';
import { openStore } from '../src/store/open.js';
import type { NewGrade } from '../src/store/types.js';

const { values } = parseArgs({
  options: {
    grades: { type: 'string', default: '1000000' },
    graders: { type: 'string', default: '50' },
    backend: { type: 'string', default: 'sqlite,postgres' },
    repeats: { type: 'string', default: '3' },
    pg: { type: 'string', default: process.env.ASSAY_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const GRADES = Number(values.grades);
const GRADERS = Number(values.graders);
const REPEATS = Number(values.repeats);
const r1 = (x: number) => Math.round(x * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(location: string) {
  const store = await openStore(location);
  try {
    const run = await writeGradedFixture(store, { N: 2000, M: 10, cell: (i, j) => ((i + j) % 4 ? Outcome.PASS : Outcome.FAIL) });
    const t0 = performance.now();
    for (let start = 0; start < GRADES; start += 20_000) {
      const grades: NewGrade[] = [];
      for (let n = start; n < Math.min(GRADES, start + 20_000); n++)
        grades.push({
          i: n % 2000,
          j: Math.floor(n / 2000) % 10,
          rule: n % 3 ? 'polite' : 'short',
          grade: (n * 7) % 5 ? 'pass' : 'fail',
          grader: GRADERS ? `g${(n * 13) % GRADERS}` : `g${n}`,
          ...(n % 5 === 0 ? { probability: 0.2, design: 'uniform' } : {}),
        });
      await store.grades.recordMany(run.id, grades);
    }
    const write_s = r1((performance.now() - t0) / 1000);
    const every: number[] = [];
    const decisive: number[] = [];
    for (let k = 0; k < REPEATS; k++) {
      let t = performance.now();
      const all = await combineInParts(run, store.grades.pages(run.id));
      every.push(performance.now() - t);
      t = performance.now();
      const some = await combineInParts(run, store.grades.decisive(run.id));
      decisive.push(performance.now() - t);
      if (!isDeepStrictEqual(some, all)) throw new Error('the decisive grades combined differently from every grade');
    }
    return {
      grades: GRADES,
      graders: GRADERS || 'one per grade',
      write_s,
      every_grade_ms: r1(median(every)),
      decisive_ms: r1(median(decisive)),
      ratio: r1(median(every) / median(decisive)),
    };
  } finally {
    await store.close();
  }
}

const result: Record<string, unknown> = { bench: 'grade-reads', node: process.version, repeats: REPEATS };
for (const backend of values.backend.split(',')) result[backend] = await onFreshStore(backend, values.pg, measure);
result.load_avg_1m = r1(loadavg()[0]);
process.stdout.write(JSON.stringify(result, null, 2) + '\n');

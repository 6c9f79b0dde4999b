/**
 * STAND-IN (engineer j2-grades) for the module engineer j1-judge-stats writes at this same path: the minimal
 * interface the grading queue is coded against. Replaced by theirs at merge; not the project's statistics.
 */
import { zCritical } from './intervals.js';
import { mulberry32 } from './prng.js';

function shuffled<T>(xs: T[], rnd: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const r = Math.floor(rnd() * (i + 1));
    [a[i], a[r]] = [a[r], a[i]];
  }
  return a;
}

export function suggestGrading(
  outputs: readonly { id: number; judge: boolean | null }[],
  count: number,
  opts: { seed: number; design: 'uniform' | 'stratified'; exclude?: ReadonlySet<number> },
): { picks: { id: number; probability: number; stratum?: string }[]; design: string } {
  const rnd = mulberry32(opts.seed);
  const pool = outputs.filter((o) => !opts.exclude?.has(o.id));
  if (opts.design === 'uniform') {
    const take = Math.min(count, pool.length);
    return {
      picks: shuffled(pool, rnd)
        .slice(0, take)
        .map((o) => ({ id: o.id, probability: take / pool.length })),
      design: `uniform, seed ${opts.seed}`,
    };
  }
  const strata = new Map<string, typeof pool>();
  for (const o of pool) {
    const s = o.judge === null ? 'none' : o.judge ? 'pass' : 'fail';
    strata.set(s, [...(strata.get(s) ?? []), o]);
  }
  const per = Math.ceil(count / Math.max(1, strata.size));
  const picks: { id: number; probability: number; stratum?: string }[] = [];
  for (const [s, members] of strata) {
    const take = Math.min(per, members.length);
    for (const o of shuffled(members, rnd).slice(0, take)) picks.push({ id: o.id, probability: take / members.length, stratum: s });
  }
  return { picks: picks.slice(0, count), design: `stratified, seed ${opts.seed}` };
}

export function gradesForWidth(args: { judged: { pass: number; n: number }; tpr?: number; tnr?: number; width: number; level: number }): number {
  const p = args.judged.n ? args.judged.pass / args.judged.n : 0.5;
  const z = zCritical(args.level);
  const v = Math.max(0.01, p * (1 - (args.tpr ?? 0.9)) + (1 - p) * (1 - (args.tnr ?? 0.9)));
  return Math.ceil((4 * z * z * v) / (args.width * args.width));
}

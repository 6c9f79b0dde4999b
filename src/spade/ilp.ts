/**
 * A small 0-1 integer program, written in CPLEX LP format and solved by HiGHS (WebAssembly).
 * The selection programs build one of these; nothing here knows about assertions.
 */
// highs ships CommonJS types for an ESM entry: under NodeNext the default import is typed as the module.
type HighsLoader = typeof import('highs').default;

/** HiGHS is imported with the first selection, not with the package (start-up, docs/runner.md). */
async function highsLoader(): Promise<HighsInstance> {
  const highsModule = await import('highs');
  return (((highsModule as unknown as { default?: HighsLoader }).default ?? highsModule) as unknown as HighsLoader)();
}

export type Term = [variable: string, coefficient: number];

export interface Constraint {
  name: string;
  terms: Term[];
  op: '<=' | '>=' | '=';
  rhs: number;
}

export interface BinaryProgram {
  sense: 'minimize' | 'maximize';
  objective: Term[];
  constraints: Constraint[];
  /** Every variable is binary. */
  variables: string[];
}

export interface IlpSolution {
  status: 'optimal' | 'infeasible' | 'other';
  /** HiGHS's own status text. */
  solverStatus: string;
  objective: number;
  values: Record<string, number>;
  /** Wall time of the solve. */
  solveMs: number;
  /** CPU time of this process during the solve (the solver is single-threaded): robust to a busy machine. */
  solveCpuMs: number;
}

type HighsInstance = Awaited<ReturnType<HighsLoader>>;
let highsPromise: Promise<HighsInstance> | undefined;

/** Loaded once; a first tiny solve warms the WebAssembly up, so `solveMs` measures solving, not start-up. */
function highs(): Promise<HighsInstance> {
  highsPromise ??= highsLoader().then((h) => {
    h.solve('Minimize\n obj: a + b\nSubject To\n c: a + b >= 1\nBinary\n a b\nEnd', { output_flag: false });
    return h;
  });
  return highsPromise;
}

function linear(terms: Term[]): string {
  if (!terms.length) return '0 ' + '__zero';
  const parts = terms.map(([v, c], k) => {
    const sign = c < 0 ? '-' : k === 0 ? '' : '+';
    const mag = Math.abs(c);
    return `${sign} ${mag === 1 ? '' : mag + ' '}${v}`.trim();
  });
  // Break long rows: the LP format allows a row to continue over several lines.
  const lines: string[] = [];
  for (let k = 0; k < parts.length; k += 8) lines.push(parts.slice(k, k + 8).join(' '));
  return lines.join('\n   ');
}

export function toLpFormat(p: BinaryProgram): string {
  const usesZero = !p.objective.length || p.constraints.some((c) => !c.terms.length);
  const out = [p.sense === 'minimize' ? 'Minimize' : 'Maximize', ` obj: ${linear(p.objective)}`, 'Subject To'];
  for (const c of p.constraints) out.push(` ${c.name}: ${linear(c.terms)} ${c.op} ${c.rhs}`);
  if (usesZero) out.push(' zero_fix: __zero = 0');
  out.push('Binary');
  const vars = usesZero ? [...p.variables, '__zero'] : p.variables;
  for (let k = 0; k < vars.length; k += 10) out.push(' ' + vars.slice(k, k + 10).join(' '));
  out.push('End');
  return out.join('\n');
}

export async function solveBinaryProgram(p: BinaryProgram, options: { timeLimitSeconds?: number } = {}): Promise<IlpSolution> {
  const h = await highs();
  const lp = toLpFormat(p);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = h.solve(lp, { output_flag: false, log_to_console: false, time_limit: options.timeLimitSeconds ?? 60, random_seed: 0, mip_rel_gap: 0 });
  const solveMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const solveCpuMs = (cpu.user + cpu.system) / 1000;
  const status = r.Status === 'Optimal' ? 'optimal' : r.Status === 'Infeasible' ? 'infeasible' : 'other';
  const values: Record<string, number> = {};
  if (status === 'optimal') {
    for (const [name, col] of Object.entries(r.Columns)) values[name] = Math.round((col as { Primal: number }).Primal);
  }
  return { status, solverStatus: r.Status, objective: status === 'optimal' ? r.ObjectiveValue : NaN, values, solveMs, solveCpuMs };
}

/**
 * Lexicographic optimisation: minimise `objectives[0]`; then, holding it at its optimum, the next;
 * and so on. Each stage is a small, well-scaled program, which HiGHS proves optimal much faster than
 * one objective with big-M weights. Coefficients must be integers (the optimum is then held exactly).
 * Returns the last stage's solution with the summed solve times (CPU per stage in `stageMs`), or the
 * first non-optimal one.
 */
export async function solveLexicographic(
  p: BinaryProgram,
  objectives: Term[][],
  options: { timeLimitSeconds?: number } = {},
): Promise<IlpSolution & { stages: number[]; stageMs: number[] }> {
  const constraints = [...p.constraints];
  const stages: number[] = [];
  const stageMs: number[] = [];
  let solveMs = 0;
  let solveCpuMs = 0;
  let last: IlpSolution | undefined;
  for (const [k, objective] of objectives.entries()) {
    if (k > 0 && !objective.length) continue;
    const sol = await solveBinaryProgram({ ...p, sense: 'minimize', objective, constraints: [...constraints] }, options);
    solveMs += sol.solveMs;
    solveCpuMs += sol.solveCpuMs;
    stageMs.push(sol.solveCpuMs);
    if (sol.status !== 'optimal') return { ...sol, solveMs, solveCpuMs, stages, stageMs };
    const opt = Math.round(sol.objective);
    stages.push(opt);
    if (objective.length) constraints.push({ name: `lex${k}`, terms: objective, op: '<=', rhs: opt });
    last = sol;
  }
  return { ...last!, solveMs, solveCpuMs, stages, stageMs };
}

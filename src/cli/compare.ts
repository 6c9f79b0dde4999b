import type { Command } from 'commander';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ExitCode, UsageError } from '../errors.js';
import { DashboardData } from '../server/data.js';
import type { ComparisonRow, RunComparison } from '../server/compare.js';
import { openStore } from './run.js';

interface CompareFlags {
  store?: string;
  json?: string;
  level?: string;
}

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const signed = (v: number | null) => (v === null ? 'n/a' : `${v > 0 ? '+' : ''}${(v * 100).toFixed(1)}%`);

function row(r: ComparisonRow, width: number): string {
  const label = r.label.length > width ? r.label.slice(0, width - 1) + '…' : r.label;
  const test = r.pValue === null ? 'n/a' : `p=${r.pValue.toPrecision(3)} ${r.test === 'fisher' ? 'Fisher' : 'z'}`;
  const change = r.direction === 'worse' ? '✗ WORSE' : r.direction === 'better' ? '✓ better' : '· same';
  const ci = r.ci ? `[${signed(r.ci.low)}, ${signed(r.ci.high)}]` : 'n/a';
  return [
    label.padEnd(width),
    `${pct(r.a.rate)} (${r.a.pass}/${r.a.n})`.padStart(16),
    `${pct(r.b.rate)} (${r.b.pass}/${r.b.n})`.padStart(16),
    signed(r.diff).padStart(8),
    ci.padStart(18),
    test.padStart(16),
    `  ${change}`,
  ].join(' ');
}

function header(first: string, width: number): string {
  return [first.padEnd(width), 'A'.padStart(16), 'B'.padStart(16), 'B−A'.padStart(8), 'interval'.padStart(18), 'test'.padStart(16), '  change'].join(' ');
}

/** The comparison as terminal text: per validator, then the inputs that changed the most. */
export function formatComparison(c: RunComparison, maxInputs = 15): string {
  const lines: string[] = [];
  lines.push(`A ${c.a.id} (${c.a.name}, ${c.a.shape})  →  B ${c.b.id} (${c.b.name}, ${c.b.shape}), level ${Math.round(c.level * 100)}%`);
  const vw = Math.max(10, ...c.validators.map((v) => Math.min(30, v.label.length)));
  lines.push('', header('validator', vw), ...c.validators.map((v) => row(v, vw)));
  if (c.onlyInA.length) lines.push(`validators only in A (not compared): ${c.onlyInA.join(', ')}`);
  if (c.onlyInB.length) lines.push(`validators only in B (not compared): ${c.onlyInB.join(', ')}`);
  const inputs = [...c.inputs].sort((x, y) => (x.pValue ?? 2) - (y.pValue ?? 2) || Math.abs(y.diff ?? 0) - Math.abs(x.diff ?? 0)).slice(0, maxInputs);
  if (inputs.length) {
    lines.push('', `inputs (${inputs.length} of ${c.inputs.length} matched, smallest p first; a guide only: samples of one input are correlated)`);
    lines.push(header('input', 30), ...inputs.map((r) => row(r, 30)));
  }
  if (c.inputsOnlyInA || c.inputsOnlyInB) lines.push(`inputs only in A: ${c.inputsOnlyInA}, only in B: ${c.inputsOnlyInB}`);
  lines.push(
    '',
    c.regressions.length
      ? `✗ significantly worse in B: ${c.regressions.join(', ')} (exit code 1)`
      : '✓ no validator got significantly worse',
  );
  return lines.join('\n') + '\n';
}

async function compareCommand(runA: string, runB: string, flags: CompareFlags): Promise<void> {
  let level = 0.95;
  if (flags.level !== undefined) {
    level = Number(flags.level);
    if (!(level > 0 && level < 1)) throw new UsageError(`--level: expected a number between 0 and 1 (e.g. 0.95), found ${JSON.stringify(flags.level)}`, { path: '--level' });
  }
  const store = openStore(flags.store, true);
  try {
    const data = new DashboardData(store);
    const result = await data.compare(runA, runB, level);
    if ('missing' in result) throw new UsageError(`no run with id "${result.missing}" in the store (list them with: assay runs)`, { path: result.missing === runA ? '<runA>' : '<runB>' });
    if (flags.json === '-') {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    } else {
      process.stdout.write(formatComparison(result));
      if (flags.json) {
        await mkdir(dirname(flags.json), { recursive: true });
        await writeFile(flags.json, JSON.stringify(result, null, 2) + '\n', 'utf8');
      }
    }
    process.exitCode = result.regressions.length ? ExitCode.VERDICT_FAILED : ExitCode.OK;
  } finally {
    await store.close();
  }
}

/** `assay compare <runA> <runB>`: is B significantly worse than A? Exit 1 if any validator is (a CI regression gate). */
export function register(program: Command): void {
  program
    .command('compare')
    .description('compare two stored runs per validator and per input; exit 1 when any validator got significantly worse')
    .argument('<runA>', 'baseline run id')
    .argument('<runB>', 'candidate run id')
    .option('--store <path>', 'SQLite store (default .assay/assay.db)')
    .option('--json <file>', 'also write the comparison as JSON ("-" for stdout only)')
    .option('--level <p>', 'confidence level of the tests and intervals', '0.95')
    .action(async (runA: string, runB: string, flags: CompareFlags) => compareCommand(runA, runB, flags));
}

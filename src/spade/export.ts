/**
 * The selected assertions as an experiment config (YAML) that `assay run` executes directly:
 * `check` and `js` forms become validators, `llm` forms verifiers. Each entry carries, in a comment
 * (the config schema is strict), its FFR and coverage on the labelled examples with 95% Wilson intervals.
 */
import { Document, isMap, isSeq, type YAMLMap } from 'yaml';
import { wilson } from '../core/intervals.js';
import { llmInstruction } from './evaluate.js';
import { assertionStats } from './metrics.js';
import type { SelectionResult } from './select.js';
import type { CandidateAssertion, EvaluationMatrix, LabelledExample } from './types.js';
import { orNoValue } from '../core/show.js';

export interface AssertionReport {
  id: string;
  kind: 'check' | 'llm' | 'js';
  ffr: { value: number | null; failed: number; n: number; ci95: [number, number] | null };
  coverage: { value: number | null; caught: number; n: number; ci95: [number, number] | null };
  errors: number;
}

export interface ExportOptions {
  name?: string;
  /** minSuccess of every exported validator (default 0.9). */
  minSuccess?: number;
  /**
   * The judge for `llm` assertions (needed when any is selected): an OpenAI model, or a provider object as
   * under a verifier's `judge:` (e.g. `{ anthropic: { model, baseURL } }`), written as it is.
   */
  judge?: { model: string; baseURL?: string; apiKeyEnv?: string } | { provider: Record<string, unknown> };
  /** Keys to keep from an existing config (system, inputs, samples, …); validators/verifiers are replaced. */
  base?: Record<string, unknown>;
  /**
   * Without `base`: a self-check that replays these examples' good outputs (all of them when none is good), each
   * once and with its own input, through a `replay` system reading `replayFile` (returned as `replay`).
   */
  examples?: LabelledExample[];
  /** The replay file's name as the config gives it, relative to the config's folder (default `spade-replay.jsonl`). */
  replayFile?: string;
}

/** The replay file of the self-check: its name as the config gives it, and its JSON Lines to write beside the config. */
export interface ReplayExport {
  file: string;
  jsonl: string;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const ci = (x: number, n: number): [number, number] | null => {
  const i = wilson(x, n, 0.95);
  return i ? [round(i.low), round(i.high)] : null;
};

/** FFR and coverage of each assertion, with 95% Wilson intervals over its non-error cells. */
export function assertionReports(candidates: CandidateAssertion[], matrix: EvaluationMatrix): AssertionReport[] {
  const stats = new Map(assertionStats(matrix).map((s) => [s.id, s]));
  return candidates.map((c) => {
    const s = stats.get(c.id);
    if (!s) throw new Error(`assertion ${c.id} is not in the evaluation matrix`);
    return {
      id: c.id,
      kind: c.form.kind,
      ffr: { value: s.goodRun ? round(s.goodFailed / s.goodRun) : null, failed: s.goodFailed, n: s.goodRun, ci95: ci(s.goodFailed, s.goodRun) },
      coverage: { value: s.badRun ? round(s.badFailed / s.badRun) : null, caught: s.badFailed, n: s.badRun, ci95: ci(s.badFailed, s.badRun) },
      errors: s.errors,
    };
  });
}

const fmt = (r: AssertionReport) =>
  ` FFR ${orNoValue(r.ffr.value)} (${r.ffr.failed}/${r.ffr.n} good flagged; 95% Wilson ${orNoValue(r.ffr.ci95, (c) => `[${c.join(', ')}]`)})` +
  `, coverage ${orNoValue(r.coverage.value)} (${r.coverage.caught}/${r.coverage.n} bad caught; 95% Wilson ${orNoValue(r.coverage.ci95, (c) => `[${c.join(', ')}]`)})` +
  (r.errors ? `, ${r.errors} errors` : '');

function judgeValue(j: NonNullable<ExportOptions['judge']>): Record<string, unknown> {
  if ('provider' in j) return structuredClone(j.provider);
  return { openai: { model: j.model, ...(j.baseURL ? { baseURL: j.baseURL } : {}), ...(j.apiKeyEnv ? { apiKeyEnv: j.apiKeyEnv } : {}) } };
}

export function selectionToConfig(
  selection: SelectionResult,
  candidates: CandidateAssertion[],
  matrix: EvaluationMatrix,
  options: ExportOptions = {},
): { yaml: string; config: Record<string, unknown>; reports: AssertionReport[]; replay?: ReplayExport } {
  const byId = new Map(candidates.map((c) => [c.id, c]));
  const chosen = selection.selected.map((id) => {
    const c = byId.get(id);
    if (!c) throw new Error(`selected assertion ${id} has no candidate definition`);
    return c;
  });
  const reports = assertionReports(chosen, matrix);
  const minSuccess = options.minSuccess ?? 0.9;
  const validators: Record<string, unknown>[] = [];
  const verifiers: Record<string, unknown>[] = [];
  for (const c of chosen) {
    const head = { name: c.id, message: c.description, minSuccess };
    if (c.form.kind === 'check') validators.push({ ...head, check: c.form.check });
    else if (c.form.kind === 'js') validators.push({ ...head, predicate: c.form.source });
    else {
      if (!options.judge) throw new Error(`assertion ${c.id} is an llm question: a judge model is needed to export it`);
      verifiers.push({ ...head, instructions: llmInstruction(c.form.question), judge: judgeValue(options.judge) });
    }
  }
  if (!options.base && !(options.examples ?? []).length) throw new Error('export needs a base config (system, inputs) or the labelled examples');
  const replay = options.base ? undefined : selfCheck(options.examples!, options.replayFile ?? 'spade-replay.jsonl');
  const base = options.base ?? replay!.base;
  const config: Record<string, unknown> = { name: options.name ?? 'spade-assertions', ...base, validators, verifiers };
  if (!verifiers.length) delete config.verifiers;
  if (!validators.length) delete config.validators;

  const doc = new Document(config);
  const fmtSet = (x: number | null) => orNoValue(x, round);
  doc.commentBefore =
    ` Generated by assay spade select: method ${selection.method}${selection.objective ? ` (${selection.objective} objective)` : ''}; ` +
    `${selection.selected.length} assertions; set FFR ${fmtSet(selection.ffr)}, coverage ${fmtSet(selection.coverage)}.\n` +
    ' Per-assertion figures are on the labelled examples the selection used.' +
    (replay
      ? `\n Self-check: replays the ${replay.replayed} labelled ${replay.what} outputs from ${replay.file.file}, each once with its own input;` +
        ` pass rates near 1 − FFR${replay.what === 'bad' ? ' (no good example: 1 − coverage here)' : ''}. For production, replace system and inputs.`
      : '');
  const reportOf = new Map(reports.map((r) => [r.id, r]));
  for (const key of ['validators', 'verifiers']) {
    const seq = doc.get(key, true);
    if (!isSeq(seq)) continue;
    for (const item of seq.items) {
      if (!isMap(item)) continue;
      const r = reportOf.get(String((item as YAMLMap).get('name')));
      if (r) item.commentBefore = fmt(r);
    }
  }
  return { yaml: doc.toString({ lineWidth: 0 }), config, reports, ...(replay ? { replay: replay.file } : {}) };
}

/**
 * The self-check: every labelled good output (every output, when none is good) replayed once, with the input
 * it was evaluated with (the empty string when it has none, as \`evaluate\` uses), so an assertion that reads
 * the input sees what it saw in selection. Outputs are matched by input index: several outputs may share an input.
 */
function selfCheck(examples: LabelledExample[], file: string) {
  const good = examples.filter((e) => e.label === 'good');
  const replayed = good.length ? good : examples;
  const inputs = replayed.map((e) => e.input ?? '');
  const jsonl = replayed.map((e, i) => JSON.stringify({ i, j: 0, id: e.id, input: inputs[i], output: e.output }) + '\n').join('');
  return {
    // A replay of the few labelled outputs checks that they pass, not how reliably a system does: the point rule.
    base: { system: { replay: { file } }, inputs, samples: 1, verdict: 'point' },
    file: { file, jsonl },
    replayed: replayed.length,
    what: good.length ? 'good' : 'bad',
  };
}

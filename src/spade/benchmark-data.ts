/**
 * Reading pipeline files of the SPADE benchmark format (see the benchmark's README) into an
 * evaluation matrix and subsumption pairs. The data is read at run time from a path; never bundled.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { matrixFromResults } from './metrics.js';
import type { EvaluationMatrix, Label, SubsumptionPair } from './types.js';

/** `optimizer`: the labels the authors' optimizer used (lecturesummaries differs from its CSV); `csv`: the labelled CSV. */
export type LabelVariant = 'optimizer' | 'csv';

export interface BenchmarkPipeline {
  name: string;
  promptVersions: string[];
  matrix: EvaluationMatrix;
  subsumes: SubsumptionPair[];
  subsumesOld: SubsumptionPair[];
  descriptions: Record<string, string>;
  /** Yes/no questions of the LLM assertions, keyed by assertion id. */
  llmQuestions: Record<string, string[]>;
  labelVariant: LabelVariant;
}

interface RawExample {
  id: string;
  label: Label;
  label_in_optimizer_input?: Label;
}
interface RawPipeline {
  pipeline: string;
  prompt_versions: string[];
  examples: RawExample[];
  assertions: { id: string; description: string; llm_questions: string[] | null }[];
  results: Record<string, boolean[]>;
  subsumes: SubsumptionPair[];
  subsumes_old?: SubsumptionPair[];
  optimizer_input_variant?: { extra_examples: { id: string; label: Label; results: Record<string, boolean> }[] };
}

function isPipeline(x: unknown): x is RawPipeline {
  const o = x as RawPipeline;
  return !!o && typeof o === 'object' && typeof o.pipeline === 'string' && Array.isArray(o.examples) && !!o.results && Array.isArray(o.assertions);
}

export function parsePipeline(raw: unknown, file: string, labels: LabelVariant = 'optimizer'): BenchmarkPipeline {
  if (!isPipeline(raw)) throw new UsageError(`${file}: not a SPADE pipeline file (expected "pipeline", "examples", "assertions", "results")`, { file });
  const ids = raw.assertions.map((a) => a.id);
  const examples: { id: string; label: Label }[] = raw.examples.map((e) => ({
    id: e.id,
    label: labels === 'optimizer' ? (e.label_in_optimizer_input ?? e.label) : e.label,
  }));
  const columns: Record<string, boolean[]> = {};
  for (const id of ids) {
    const col = raw.results[id];
    if (!Array.isArray(col) || col.length !== raw.examples.length) {
      throw new UsageError(
        `${file}: results.${id} must hold one boolean per example (${raw.examples.length}); found ${Array.isArray(col) ? col.length : typeof col}`,
        { file, path: `results.${id}` },
      );
    }
    columns[id] = [...col];
  }
  if (labels === 'optimizer' && raw.optimizer_input_variant) {
    for (const x of raw.optimizer_input_variant.extra_examples) {
      examples.push({ id: x.id, label: x.label });
      for (const id of ids) columns[id].push(x.results[id]);
    }
  }
  const matrix = matrixFromResults(examples, ids, (e, a) => {
    const v = columns[ids[a]][e];
    return typeof v === 'boolean' ? v : null;
  });
  return {
    name: raw.pipeline,
    promptVersions: raw.prompt_versions ?? [],
    matrix,
    subsumes: raw.subsumes.map(({ subsumer, subsumed }) => ({ subsumer, subsumed })),
    subsumesOld: (raw.subsumes_old ?? []).map(({ subsumer, subsumed }) => ({ subsumer, subsumed })),
    descriptions: Object.fromEntries(raw.assertions.map((a) => [a.id, a.description])),
    llmQuestions: Object.fromEntries(raw.assertions.filter((a) => a.llm_questions).map((a) => [a.id, a.llm_questions as string[]])),
    labelVariant: labels,
  };
}

/** Every pipeline file of the benchmark format in `dir` (other JSON files are ignored), sorted by name. */
export async function loadPipelines(dir: string, labels: LabelVariant = 'optimizer'): Promise<BenchmarkPipeline[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (err) {
    throw new UsageError(`${dir}: cannot read the benchmark directory (${(err as Error).message})`, { file: dir });
  }
  const out: BenchmarkPipeline[] = [];
  for (const n of names) {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(join(dir, n), 'utf8'));
    } catch (err) {
      throw new UsageError(`${join(dir, n)}: not valid JSON (${(err as Error).message})`, { file: join(dir, n) });
    }
    if (isPipeline(raw)) out.push(parsePipeline(raw, join(dir, n), labels));
  }
  return out;
}

/** One cell of the paper's Table 4: FFR / coverage / |S| (fraction) / excluded-not-subsumed. */
export interface Table4Cell {
  ffr: number;
  coverage: number;
  nSelected: number;
  nExcludedNotSubsumed: number;
}
export interface Table4Row {
  pipeline: string;
  candidates: number;
  base: Table4Cell;
  cov: Table4Cell;
  sub: Table4Cell;
}

/** The paper's Table 4 as restated in the benchmark README (parsed at run time, not copied). */
export function parseTable4(readme: string): Table4Row[] {
  const at = readme.indexOf("## The paper's Table 4");
  if (at < 0) throw new Error('README has no "The paper\'s Table 4" section');
  const rows: Table4Row[] = [];
  const cell = (s: string): Table4Cell => {
    const m = /^\s*([\d.]+)\s*✗?\s*\/\s*([\d.]+)\s*\/\s*(\d+)\s*\([\d.]+\)\s*\/\s*(\d+)\s*$/.exec(s);
    if (!m) throw new Error(`cannot read Table 4 cell "${s}"`);
    return { ffr: Number(m[1]), coverage: Number(m[2]), nSelected: Number(m[3]), nExcludedNotSubsumed: Number(m[4]) };
  };
  for (const line of readme.slice(at).split('\n')) {
    const parts = line.split('|').map((s) => s.trim());
    if (parts.length < 7 || !/^\d+$/.test(parts[2])) continue;
    rows.push({ pipeline: parts[1], candidates: Number(parts[2]), base: cell(parts[3]), cov: cell(parts[4]), sub: cell(parts[5]) });
  }
  return rows;
}

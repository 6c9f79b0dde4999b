/**
 * Files of the SPADE commands: labelled examples, candidate lists and evaluation matrices (JSON).
 * A benchmark pipeline file is accepted wherever examples or a matrix are expected.
 */
import { withoutBom } from '../core/text.js';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { Outcome } from '../core/outcome.js';
import { UsageError } from '../errors.js';
import { zodUsageError } from '../core/issues.js';
import { textCheckSchema } from '../validators/builtin.js';
import { parsePipeline, type LabelVariant } from './benchmark-data.js';
import type { CandidateAssertion, EvaluationMatrix, LabelledExample, SubsumptionPair } from './types.js';
import { TAXONOMY_NAMES } from './types.js';

export async function readData(file: string): Promise<unknown> {
  let raw: string;
  try {
    raw = withoutBom(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file}: cannot read (${(err as Error).message})`, { file });
  }
  try {
    if (/\.jsonl$/i.test(file)) {
      return raw
        .split('\n')
        .map((l, k) => [l, k] as const)
        .filter(([l]) => l.trim())
        .map(([l, k]) => {
          try {
            return JSON.parse(l);
          } catch (err) {
            throw new UsageError(`${file}:${k + 1}: not valid JSON (${(err as Error).message})`, { file, line: k + 1 });
          }
        });
    }
    return /\.ya?ml$/i.test(file) ? parseYaml(raw) : JSON.parse(raw);
  } catch (err) {
    if (UsageError.isInstance(err)) throw err;
    throw new UsageError(`${file}: not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'} (${(err as Error).message})`, { file });
  }
}

/** A file's problems, worded as config errors are (core/issues.ts): `<file>: <field>: expected …, found …`. */
function issue(file: string, err: z.ZodError, prefix: string, schema: unknown): UsageError {
  return zodUsageError(err, { file, prefix: prefix ? [prefix] : [], schema });
}

const labelSchema = z.union([z.enum(['good', 'bad']), z.literal(1).transform(() => 'good' as const), z.literal(0).transform(() => 'bad' as const)], {
  error: 'expected "good", "bad", 1 or 0',
});
const exampleSchema = z.object({
  id: z.union([z.string(), z.number()]).optional(),
  output: z.string({ error: 'expected the output text' }),
  input: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  label: labelSchema,
});

/** Examples: a list, `{examples: [...]}`, JSONL, or a benchmark pipeline file. */
export async function readExamples(file: string): Promise<LabelledExample[]> {
  const data = await readData(file);
  const list = Array.isArray(data) ? data : (data as { examples?: unknown })?.examples;
  if (!Array.isArray(list)) throw new UsageError(`${file}: expected a list of examples {output, label, input?, id?} or {examples: [...]}`, { file });
  const schema = z.array(exampleSchema);
  const parsed = schema.safeParse(list, { reportInput: true });
  if (!parsed.success) throw issue(file, parsed.error, 'examples', schema);
  return parsed.data.map((e, k) => ({
    id: e.id !== undefined ? String(e.id) : `e${k}`,
    output: e.output,
    label: e.label,
    ...(e.input !== undefined ? { input: e.input } : {}),
  }));
}

const formSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('check'), check: textCheckSchema }),
  z.strictObject({ kind: z.literal('llm'), question: z.string().min(1) }),
  z.strictObject({ kind: z.literal('js'), source: z.string().min(1) }),
]);
const candidateSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, { error: 'expected an identifier-like name' }),
  description: z.string(),
  form: formSchema,
  criterion: z.string().optional(),
  category: z.enum(TAXONOMY_NAMES as [string, ...string[]]).optional(),
  delta: z.number().int().optional(),
});

/** Candidates: a list or `{candidates: [...]}` (what `assay spade synthesize` writes). */
export async function readCandidates(file: string): Promise<CandidateAssertion[]> {
  const data = await readData(file);
  const list = Array.isArray(data) ? data : (data as { candidates?: unknown })?.candidates;
  if (!Array.isArray(list)) throw new UsageError(`${file}: expected a list of candidates or {candidates: [...]}`, { file });
  const schema = z.array(candidateSchema);
  const parsed = schema.safeParse(list, { reportInput: true });
  if (!parsed.success) throw issue(file, parsed.error, 'candidates', schema);
  const seen = new Set<string>();
  for (const [k, c] of parsed.data.entries()) {
    if (seen.has(c.id))
      throw new UsageError(`${file}: candidates.${k}.id: expected a unique name, found ${JSON.stringify(c.id)} twice`, { file, path: `candidates.${k}.id` });
    seen.add(c.id);
  }
  return parsed.data as CandidateAssertion[];
}

/**
 * The matrix as JSON: results[assertion][example] = true (pass) | false (fail) | null (error), and
 * the reason of every error cell as {example, assertion, error} with their names.
 */
export function matrixToJson(m: EvaluationMatrix): Record<string, unknown> {
  const A = m.assertions.length;
  const results: Record<string, (boolean | null)[]> = {};
  m.assertions.forEach((id, a) => {
    results[id] = m.examples.map((_, e) => {
      const c = m.cells[e * A + a];
      return c === Outcome.PASS ? true : c === Outcome.FAIL ? false : null;
    });
  });
  const errors = Object.entries(m.errors ?? {}).map(([key, error]) => {
    const [e, a] = key.split(':').map(Number);
    return { example: m.examples[e]?.id ?? String(e), assertion: m.assertions[a] ?? String(a), error };
  });
  return { assertions: m.assertions, examples: m.examples, results, errors, ...(m.labels ? { labels: m.labels } : {}) };
}

const matrixSchema = z.object({
  assertions: z.array(z.string()),
  examples: z.array(z.object({ id: z.string(), label: z.enum(['good', 'bad']) })),
  results: z.record(z.string(), z.array(z.boolean().nullable())),
  errors: z.union([z.array(z.object({ example: z.string(), assertion: z.string(), error: z.string() })), z.record(z.string(), z.string())]).optional(),
  labels: z.object({ run: z.string(), rule: z.string().optional() }).optional(),
});

/** A matrix file written by `assay spade evaluate`, or a benchmark pipeline file (with its subsumption pairs). */
export async function readMatrix(file: string, labels: LabelVariant = 'optimizer'): Promise<{ matrix: EvaluationMatrix; subsumes?: SubsumptionPair[] }> {
  const data = await readData(file);
  if (data && typeof data === 'object' && 'pipeline' in data) {
    const p = parsePipeline(data, file, labels);
    return { matrix: p.matrix, subsumes: p.subsumes };
  }
  if (!data || typeof data !== 'object' || !('results' in data)) {
    throw new UsageError(`${file}: expected a matrix written by assay spade evaluate ({assertions, examples, results}) or a SPADE benchmark pipeline file`, {
      file,
    });
  }
  const parsed = matrixSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) throw issue(file, parsed.error, '', matrixSchema);
  const { assertions, examples, results, errors, labels: graded } = parsed.data;
  const twice = assertions.find((x, k) => assertions.indexOf(x) !== k);
  if (twice !== undefined)
    throw new UsageError(`${file}: assertions: expected unique names, found ${JSON.stringify(twice)} twice`, { file, path: 'assertions' });
  const A = assertions.length;
  const cells = new Uint8Array(examples.length * A);
  assertions.forEach((id, a) => {
    const col = results[id];
    if (!col || col.length !== examples.length) {
      throw new UsageError(`${file}: results.${id}: expected ${examples.length} values (one per example), found ${col ? col.length : 'none'}`, {
        file,
        path: `results.${id}`,
      });
    }
    col.forEach((v, e) => (cells[e * A + a] = v === true ? Outcome.PASS : v === false ? Outcome.FAIL : Outcome.ERROR));
  });
  // In memory, error reasons are keyed by `${example index}:${assertion index}`.
  let byIndex: Record<string, string> = {};
  if (Array.isArray(errors)) {
    const ex = new Map(examples.map((x, k) => [x.id, k]));
    const as = new Map(assertions.map((x, k) => [x, k]));
    for (const r of errors) if (ex.has(r.example) && as.has(r.assertion)) byIndex[`${ex.get(r.example)}:${as.get(r.assertion)}`] = r.error;
  } else byIndex = errors ?? {};
  return { matrix: { assertions, examples, cells, errors: byIndex, ...(graded ? { labels: graded } : {}) } };
}

const pairsSchema = z.array(z.object({ subsumer: z.string(), subsumed: z.string() }));

export async function readSubsumptions(file: string): Promise<SubsumptionPair[]> {
  const data = await readData(file);
  const list = Array.isArray(data) ? data : ((data as { subsumes?: unknown; pairs?: unknown })?.subsumes ?? (data as { pairs?: unknown })?.pairs);
  const parsed = pairsSchema.safeParse(list, { reportInput: true });
  if (!parsed.success) throw issue(file, parsed.error, 'subsumes', pairsSchema);
  return parsed.data.map(({ subsumer, subsumed }) => ({ subsumer, subsumed }));
}

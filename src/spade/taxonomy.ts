/**
 * Categorising prompt deltas into the paper's taxonomy (§2, Figure 2) with an LLM, and measuring
 * agreement with the human tags of the paper's annotated deltas.
 */
import * as z from 'zod';
import { diffVersions, type PromptDelta } from './deltas.js';
import type { SpadeLlm } from './llm.js';
import { TAXONOMY, TAXONOMY_NAMES, type TaxonomyCategory } from './types.js';

export interface CategorisedSentence {
  sentence: string;
  categories: TaxonomyCategory[];
}

const categorySchema = z.enum(TAXONOMY_NAMES as [TaxonomyCategory, ...TaxonomyCategory[]]);
const answerSchema = z.strictObject({
  sentences: z.array(z.strictObject({ index: z.number().int(), categories: z.array(categorySchema) })),
});

const EXPLANATIONS: Record<TaxonomyCategory, string> = {
  'Response Format Instruction': 'structure or format of the response (JSON, Markdown, start with …, sections)',
  'Example Demonstration': 'adds or changes an example of input/output',
  'Prompt Clarification': 'rephrases or clarifies an instruction without changing what a good response is',
  'Workflow Description': 'steps the model should perform (first do X, then Y)',
  'Data Integration': 'adds a new source of context or template variable such as {movie_info}',
  'Quantity Instruction': 'counts or lengths (at most 3 bullets, about 200 words)',
  Inclusion: 'something the response must include (a phrase, a section, a detail)',
  Exclusion: 'something the response must not include or mention',
  'Qualitative Criteria': 'tone, style or quality (concise, friendly, professional)',
};

export const TAXONOMY_SYSTEM = [
  'You categorise prompt deltas: sentences added to an LLM prompt template between two versions.',
  'Give each added sentence every category of this taxonomy that applies (usually one or two):',
  ...TAXONOMY_NAMES.map((c) => `- ${c}: ${EXPLANATIONS[c]}`),
  'Answer with JSON only.',
].join('\n');

/** Categorise every added sentence of a delta (one LLM call; none when nothing was added). */
export async function categoriseDelta(llm: SpadeLlm, delta: Pick<PromptDelta, 'added' | 'deleted'>, newPrompt?: string): Promise<CategorisedSentence[]> {
  if (!delta.added.length) return [];
  const user = [
    newPrompt ? `The new prompt version:\n"""\n${newPrompt}\n"""\n` : '',
    delta.deleted.length ? `Deleted sentences (context only):\n${delta.deleted.map((s) => `- ${s}`).join('\n')}\n` : '',
    'Added sentences:',
    ...delta.added.map((s, k) => `${k}. ${s}`),
    '',
    'Return {"sentences": [{"index": <number of the added sentence>, "categories": [<category>, ...]}, ...]} with one entry per added sentence.',
  ].join('\n');
  const answer = await llm.json('taxonomy', answerSchema, TAXONOMY_SYSTEM, user);
  const byIndex = new Map(answer.sentences.map((s) => [s.index, [...new Set(s.categories)]]));
  return delta.added.map((sentence, k) => ({ sentence, categories: byIndex.get(k) ?? [] }));
}

/** Category name → the tag of the paper's annotated data (e.g. "Content/Count"). */
export const TAG_OF: Record<TaxonomyCategory, string> = Object.fromEntries(TAXONOMY.map((t) => [t.name, t.tag])) as Record<TaxonomyCategory, string>;

/**
 * Rebuild the two versions from an `ndiff`-style diff ("  " common, "- " old only, "+ " new only,
 * "? " hint lines), as stored in the annotated data set.
 */
export function versionsFromNdiff(diff: string): { oldText: string; newText: string } {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const line of diff.split('\n')) {
    const tag = line.slice(0, 2);
    const body = line.slice(2);
    if (tag === '  ') {
      oldLines.push(body);
      newLines.push(body);
    } else if (tag === '- ') oldLines.push(body);
    else if (tag === '+ ') newLines.push(body);
  }
  return { oldText: oldLines.join('\n'), newText: newLines.join('\n') };
}

export interface AnnotatedDelta {
  id: string | number;
  diff: string;
  prompt_template?: string;
  ground_truth_tags: string[];
}

export interface TaxonomyAgreement {
  deltas: number;
  /** Deltas whose predicted tag set equals the human one. */
  exactMatch: number;
  /** Mean Jaccard similarity of the tag sets. */
  meanJaccard: number;
  micro: { precision: number; recall: number; f1: number };
  perTag: Record<string, { tp: number; fp: number; fn: number; f1: number }>;
  /** Deltas the LLM could not categorise (infrastructure errors), kept apart. */
  errors: { id: string | number; error: string }[];
  predictions: { id: string | number; predicted: string[]; human: string[] }[];
}

const f1 = (tp: number, fp: number, fn: number) => (tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn));

/** Delta-level tags = the union of the categories of its added sentences; compared with the human tags. */
export async function evaluateTaxonomy(llm: SpadeLlm, rows: AnnotatedDelta[], options: { concurrency?: number } = {}): Promise<TaxonomyAgreement> {
  const predictions: TaxonomyAgreement['predictions'] = [];
  const errors: TaxonomyAgreement['errors'] = [];
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++];
      const { oldText, newText } = versionsFromNdiff(row.diff);
      try {
        const cats = await categoriseDelta(llm, diffVersions(oldText, newText), row.prompt_template);
        const predicted = [...new Set(cats.flatMap((c) => c.categories.map((x) => TAG_OF[x])))].sort();
        predictions.push({ id: row.id, predicted, human: [...row.ground_truth_tags].sort() });
      } catch (err) {
        errors.push({ id: row.id, error: (err as Error).message });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  return agreement(predictions, errors);
}

export function agreement(predictions: TaxonomyAgreement['predictions'], errors: TaxonomyAgreement['errors'] = []): TaxonomyAgreement {
  const perTag: TaxonomyAgreement['perTag'] = {};
  const bump = (tag: string, k: 'tp' | 'fp' | 'fn') => {
    perTag[tag] ??= { tp: 0, fp: 0, fn: 0, f1: 0 };
    perTag[tag][k]++;
  };
  let exact = 0;
  let jaccard = 0;
  for (const p of predictions) {
    const h = new Set(p.human);
    const q = new Set(p.predicted);
    for (const t of q) bump(t, h.has(t) ? 'tp' : 'fp');
    for (const t of h) if (!q.has(t)) bump(t, 'fn');
    const inter = [...q].filter((t) => h.has(t)).length;
    const union = new Set([...h, ...q]).size;
    jaccard += union ? inter / union : 1;
    if (inter === union) exact++;
  }
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const c of Object.values(perTag)) {
    c.f1 = f1(c.tp, c.fp, c.fn);
    tp += c.tp;
    fp += c.fp;
    fn += c.fn;
  }
  return {
    deltas: predictions.length,
    exactMatch: exact,
    meanJaccard: predictions.length ? jaccard / predictions.length : 0,
    micro: { precision: tp + fp ? tp / (tp + fp) : 0, recall: tp + fn ? tp / (tp + fn) : 0, f1: f1(tp, fp, fn) },
    perTag,
    errors,
    predictions,
  };
}

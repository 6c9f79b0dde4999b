/**
 * Candidate synthesis (SPADE §2.3), in two LLM steps: natural-language criteria per prompt delta,
 * then assertions implementing each criterion. A vague criterion ("be concise") gets several
 * alternative assertions, as the paper does. Every assertion takes one of the typed, safe forms;
 * anything else the LLM writes is rejected with a reason, never executed.
 */
import * as z from 'zod';
import { textCheckSchema } from '../validators/builtin.js';
import type { Sandbox } from '../sandbox/types.js';
import type { PromptDelta } from './deltas.js';
import type { SpadeLlm } from './llm.js';
import { TAXONOMY_NAMES, type AssertionForm, type CandidateAssertion, type TaxonomyCategory } from './types.js';
import { pushAll } from '../core/arrays.js';
import { thrownMessage } from '../errors.js';

export interface Criterion {
  delta: number;
  criterion: string;
  category: TaxonomyCategory;
  /** The LLM judged it open to several readings: several assertions are asked for. */
  vague: boolean;
}

const categorySchema = z.enum(TAXONOMY_NAMES as [TaxonomyCategory, ...TaxonomyCategory[]]);
const criteriaSchema = z.strictObject({
  criteria: z.array(z.strictObject({ criterion: z.string().min(1), category: categorySchema, vague: z.boolean() })),
});
// Flat and nullable, because strict structured output cannot express a tagged union well.
const assertionsSchema = z.strictObject({
  assertions: z.array(
    z.strictObject({
      name: z.string().min(1),
      description: z.string().min(1),
      kind: z.enum(['check', 'llm', 'js']),
      check: z.string().nullable(),
      question: z.string().nullable(),
      source: z.string().nullable(),
    }),
  ),
});

export const CRITERIA_SYSTEM = [
  'You help an engineer write data-quality assertions for an LLM pipeline from the changes to its prompt.',
  'For the prompt delta given, list as many criteria as you can that an output of the NEW prompt must meet.',
  'A criterion is a short natural-language test of one output that is true or false ("check for conciseness").',
  `Tag each with one category: ${TAXONOMY_NAMES.join(', ')}.`,
  'Mark a criterion vague when it can reasonably be checked in more than one way.',
  'Answer with JSON only.',
].join('\n');

export const ASSERTIONS_SYSTEM = [
  'You implement criteria as assertions on one LLM output. Each assertion takes exactly one form:',
  '- kind "check": a built-in check, given in `check` as a JSON object text, one of',
  '  {"type":"contains","value":"x"|["x","y"],"ignoreCase"?:bool,"match"?:"all"|"any"}, {"type":"not-contains","value":...},',
  '  {"type":"regex","pattern":"...","flags"?:"i","mustMatch"?:bool}, {"type":"max-count","pattern":"...","max":n},',
  '  {"type":"words","min"?:n,"max"?:n}, {"type":"sentences","min"?:n,"max"?:n}, {"type":"json"}, {"type":"json-schema","schema":{...}};',
  '- kind "llm": a yes/no `question` about the output, where "yes" means the output is good;',
  '- kind "js": `source` is a JavaScript arrow function (output, input) => boolean, pure, with no require, import, I/O or globals.',
  'Prefer "check" or "js" when the criterion is mechanical, "llm" when it needs judgement.',
  'Set the fields of the other forms to null. Names are short snake_case identifiers. Answer with JSON only.',
].join('\n');

export async function synthesizeCriteria(llm: SpadeLlm, delta: PromptDelta, newPrompt: string): Promise<Criterion[]> {
  if (!delta.added.length && !delta.deleted.length) return [];
  const user = [
    `New prompt version:\n"""\n${newPrompt}\n"""`,
    'Delta from the previous version:',
    ...delta.deleted.map((s) => `- ${s}`),
    ...delta.added.map((s) => `+ ${s}`),
  ].join('\n');
  const r = await llm.json('criteria', criteriaSchema, CRITERIA_SYSTEM, user);
  return r.criteria.map((c) => ({ delta: delta.index, ...c }));
}

export interface Rejected {
  name: string;
  reason: string;
}

const identifier = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60) || 'assertion';

/** Turn one raw LLM assertion into a typed form, or say why not. */
async function toForm(a: z.infer<typeof assertionsSchema>['assertions'][number], sandbox?: Sandbox): Promise<AssertionForm | string> {
  if (a.kind === 'llm') return a.question?.trim() ? { kind: 'llm', question: a.question.trim() } : 'kind "llm" without a question';
  if (a.kind === 'js') {
    const source = a.source?.trim();
    if (!source) return 'kind "js" without a source';
    if (sandbox) {
      try {
        await sandbox.compile(source);
      } catch (err) {
        return `JavaScript does not compile in the sandbox: ${(err as Error).message}`;
      }
    }
    return { kind: 'js', source };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(a.check ?? '');
  } catch {
    return `kind "check" whose check is not JSON: ${String(a.check).slice(0, 80)}`;
  }
  const parsed = textCheckSchema.safeParse(raw);
  if (!parsed.success) return `not a built-in check: ${parsed.error.issues[0].message} at ${parsed.error.issues[0].path.join('.') || 'check'}`;
  return { kind: 'check', check: parsed.data };
}

export async function synthesizeAssertions(
  llm: SpadeLlm,
  criterion: Criterion,
  options: { sandbox?: Sandbox; taken?: Set<string> } = {},
): Promise<{ candidates: CandidateAssertion[]; rejected: Rejected[] }> {
  const want = criterion.vague
    ? 'This criterion is vague: give 3 different assertions, each a different reading of it.'
    : 'Give 1 assertion (2 if one form alone would miss part of it).';
  const user = `Criterion (${criterion.category}): ${criterion.criterion}\n${want}\nReturn {"assertions": [{"name","description","kind","check","question","source"}, ...]}.`;
  const r = await llm.json('assertions', assertionsSchema, ASSERTIONS_SYSTEM, user);
  const taken = options.taken ?? new Set<string>();
  const candidates: CandidateAssertion[] = [];
  const rejected: Rejected[] = [];
  for (const a of r.assertions) {
    const form = await toForm(a, options.sandbox);
    if (typeof form === 'string') {
      rejected.push({ name: a.name, reason: form });
      continue;
    }
    let id = identifier(a.name);
    for (let k = 2; taken.has(id); k++) id = `${identifier(a.name)}_${k}`;
    taken.add(id);
    candidates.push({ id, description: a.description, form, criterion: criterion.criterion, category: criterion.category, delta: criterion.delta });
  }
  return { candidates, rejected };
}

export interface SynthesisResult {
  criteria: Criterion[];
  candidates: CandidateAssertion[];
  rejected: Rejected[];
  /** LLM calls that failed (unreachable, HTTP errors, answers off the schema): kept apart, the rest goes on. */
  errors: { delta?: number; step: 'criteria' | 'assertions' | 'subsumptions'; criterion?: string; error: string }[];
}

const message = (err: unknown) => thrownMessage(err);

/** Both steps over every delta. `prompts[k]` is the text of version k (the delta's newer side). */
export async function synthesizeCandidates(
  llm: SpadeLlm,
  deltas: PromptDelta[],
  prompts: string[],
  options: { sandbox?: Sandbox } = {},
): Promise<SynthesisResult> {
  const out: SynthesisResult = { criteria: [], candidates: [], rejected: [], errors: [] };
  const taken = new Set<string>();
  for (const d of deltas) {
    let criteria: Criterion[];
    try {
      criteria = await synthesizeCriteria(llm, d, prompts[d.index] ?? '');
    } catch (err) {
      out.errors.push({ delta: d.index, step: 'criteria', error: message(err) });
      continue;
    }
    pushAll(out.criteria, criteria);
    for (const c of criteria) {
      try {
        const r = await synthesizeAssertions(llm, c, { sandbox: options.sandbox, taken });
        pushAll(out.candidates, r.candidates);
        pushAll(out.rejected, r.rejected);
      } catch (err) {
        out.errors.push({ delta: d.index, step: 'assertions', criterion: c.criterion, error: message(err) });
      }
    }
  }
  return out;
}

/**
 * Why a synthesis produced no candidate, and what to try; null when it produced some. Failed LLM calls are
 * reported on their own (exit 3); this says what the answers that did come back amounted to.
 */
export function whyNoCandidates(r: SynthesisResult, deltas: PromptDelta[]): string | null {
  if (r.candidates.length) return null;
  const n = deltas.length;
  const asked = `${n} delta${n === 1 ? '' : 's'}`;
  if (r.errors.length && !r.criteria.length)
    return `no candidate assertions: the LLM calls failed (${r.errors.length} error${r.errors.length === 1 ? '' : 's'} above); fix the connection or the model and run again`;
  const offline =
    'a stronger model (--model, --llm); with assay mock, whose default answer to a structured request is the schema\'s smallest object (empty lists), give it --rules with criteria and assertions (docs/spade.md, "Offline with assay mock")';
  if (!r.criteria.length) return `no candidate assertions: the LLM listed no criteria for any of the ${asked}; try ${offline}`;
  if (r.rejected.length)
    return (
      `no candidate assertions: the LLM listed ${r.criteria.length} criteria, but all ${r.rejected.length} assertions it wrote were rejected (reasons above); ` +
      'try a stronger model (--model, --llm), or write the candidates file by hand (docs/spade.md, "Candidate synthesis")'
    );
  return `no candidate assertions: the LLM listed ${r.criteria.length} criteria but wrote no assertion for any of them${r.errors.length ? ' that came back' : ''}; try ${offline}`;
}

/**
 * SPADE (Shankar et al. 2024): candidate assertions synthesized from prompt deltas, and a minimal set
 * selected by integer programming. Shared types of the pipeline.
 */
import type { CheckSpec } from '../validators/builtin.js';

/** The paper's taxonomy of prompt deltas (Figure 2), with the tags of its annotated data set. */
export const TAXONOMY = [
  { name: 'Response Format Instruction', tag: 'Structural/PresentationFormat' },
  { name: 'Example Demonstration', tag: 'Structural/ExampleDemonstration' },
  { name: 'Prompt Clarification', tag: 'Structural/PromptRephrasing' },
  { name: 'Workflow Description', tag: 'Content/WorkflowDescription' },
  { name: 'Data Integration', tag: 'Content/DataPlaceholders' },
  { name: 'Quantity Instruction', tag: 'Content/Count' },
  { name: 'Inclusion', tag: 'Content/Inclusion' },
  { name: 'Exclusion', tag: 'Content/Exclusion' },
  { name: 'Qualitative Criteria', tag: 'Content/QualitativeAssessment' },
] as const;

export type TaxonomyCategory = (typeof TAXONOMY)[number]['name'];
export const TAXONOMY_NAMES = TAXONOMY.map((t) => t.name) as TaxonomyCategory[];

/**
 * A typed, safe assertion form. `check` is a runner built-in check type (with its own fields), `llm`
 * a yes/no question put to a judge (yes = pass), `js` an arrow function `(output, input) => boolean`
 * that only ever runs inside the sandbox.
 */
export type AssertionForm = { kind: 'check'; check: CheckSpec } | { kind: 'llm'; question: string } | { kind: 'js'; source: string };

export interface CandidateAssertion {
  /** Unique, identifier-like name (becomes the validator name). */
  id: string;
  /** What the assertion checks, in words (becomes the validator message). */
  description: string;
  form: AssertionForm;
  /** The natural-language criterion it implements (synthesis step 1). */
  criterion?: string;
  category?: TaxonomyCategory;
  /** Index of the prompt delta it came from. */
  delta?: number;
}

export type Label = 'good' | 'bad';

export interface LabelledExample {
  id: string;
  output: string;
  input?: string | Record<string, unknown>;
  label: Label;
}

/**
 * Assertion × example outcomes. `cells[e * assertions.length + a]` holds an Outcome code
 * (PASS = the assertion deems the example good, FAIL = it flags a failure, ERROR = it could not say).
 */
export interface EvaluationMatrix {
  assertions: string[];
  examples: { id: string; label: Label }[];
  cells: Uint8Array;
  /** Why a cell is ERROR, keyed `${example}:${assertion}` by index. */
  errors?: Record<string, string>;
  /** Set when the labels are people's grades of a stored run (`--run`), of one rule or of all. */
  labels?: { run: string; rule?: string };
}

/** K[i][j] = 1: assertion `subsumer` fails whenever `subsumed` fails, so selecting the subsumer covers it. */
export interface SubsumptionPair {
  subsumer: string;
  subsumed: string;
}

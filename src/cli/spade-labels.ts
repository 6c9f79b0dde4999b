import { UsageError } from '../errors.js';
import type { JudgeMaker } from '../judge/config.js';
import { judgeMakerFromConfig } from '../judge/config.js';
import { readProviderFile } from '../providers/provider-file.js';
import { localLimiters } from '../providers/rate-limit.js';
import { createSandbox } from '../sandbox/index.js';
import { evaluateCandidates, type JudgeSettings } from '../spade/evaluate.js';
import { gradedExamples } from '../spade/graded.js';
import { readExamples } from '../spade/io.js';
import type { CandidateAssertion, EvaluationMatrix, LabelledExample } from '../spade/types.js';
import { openStore, storeLocation } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';

/**
 * Where `assay spade evaluate` and `select` take their labelled examples from: a file (`--examples`), or
 * people's grades of a stored run (`--run RUN [--rule R] [--store S]`, EvalGen's way), and the evaluation of
 * candidates on them that both commands run.
 */

export interface LabelFlags {
  examples?: string;
  run?: string;
  rule?: string;
  store?: string;
}

export interface Labelled {
  examples: LabelledExample[];
  /** Set when the labels are people's grades of a run. */
  graded?: { run: string; rule?: string };
  /** What the grades amounted to, for the terminal. */
  notes: string[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The labelled examples of `--examples` or `--run`; undefined when neither is given. */
export async function labelledExamples(o: LabelFlags): Promise<Labelled | undefined> {
  if (o.examples !== undefined && o.run !== undefined)
    throw new UsageError(
      `expected --examples or --run, found both (--examples ${o.examples} and --run ${o.run}): the labels come from a file or from people's grades of a run`,
      { path: '--run' },
    );
  if (o.rule !== undefined && o.run === undefined)
    throw new UsageError(`--rule: expected --run <run> whose grades of this rule are the labels, found no --run`, { path: '--rule' });
  if (o.examples !== undefined) return { examples: await readExamples(o.examples), notes: [] };
  if (o.run === undefined) return undefined;
  await using store = await openStore(storeLocation(o.store), { readonly: true });
  const runId = await resolveRunId(store, o.run, '--run');
  const run = (await store.runs.get(runId))!;
  const g = await gradedExamples(store, run, { rule: o.rule });
  const good = g.examples.filter((e) => e.label === 'good').length;
  const notes = [
    `labelled by people's grades of run ${runId}: ${plural(g.examples.length, 'output')} (${good} good = graded PASS, ${g.examples.length - good} bad = graded FAIL); ` +
      g.rules.map((r) => `${r.rule} ${r.pass} PASS / ${r.fail} FAIL`).join(', '),
  ];
  if (g.mixed) notes.push(`  ${plural(g.mixed, 'output')} graded PASS on one rule and FAIL on another: bad (a FAIL on any rule makes an output bad)`);
  if (g.disputed) notes.push(`  ${plural(g.disputed, 'output')} disputed among graders: the majority decided (docs/judges.md)`);
  if (!good || good === g.examples.length)
    notes.push(`  no ${good ? 'bad' : 'good'} output among the graded: ${good ? 'coverage' : 'the false failure rate'} is undefined until one is graded`);
  return { examples: g.examples, graded: { run: runId, ...(o.rule !== undefined ? { rule: o.rule } : {}) }, notes };
}

export interface EvalFlags {
  judge?: string;
  judgeModel?: string;
  judgeBaseUrl?: string;
}

/** Judges on any provider from `--judge <file>` (a provider object, as under a verifier's judge:); built now, so a bad file or missing key fails first. */
export async function judgeFromFile(file: string): Promise<JudgeMaker> {
  const raw = await readProviderFile(file, '--judge');
  return judgeMakerFromConfig(raw, { file, path: '--judge', limiters: localLimiters(), retry: { baseMs: 200, maxMs: 2000 } }, 'spade:judge');
}

/** The judge of `llm` assertions at evaluation: `--judge <file>`, or an OpenAI-compatible `--judge-model`. */
export async function evaluationJudge(o: EvalFlags): Promise<JudgeSettings | JudgeMaker | undefined> {
  if (o.judge) return judgeFromFile(o.judge);
  if (o.judgeModel) return { model: o.judgeModel, baseURL: o.judgeBaseUrl ?? process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY };
  return undefined;
}

/** Every candidate on every example in a sandbox of its own; the matrix says where its labels came from. */
export async function evaluateOn(
  candidates: CandidateAssertion[],
  labelled: Labelled,
  judge: JudgeSettings | JudgeMaker | undefined,
  timeoutMs: number,
): Promise<EvaluationMatrix> {
  const sandbox = createSandbox();
  try {
    const m = await evaluateCandidates(candidates, labelled.examples, { sandbox, sandboxLimits: { timeoutMs }, judge });
    return labelled.graded ? { ...m, labels: labelled.graded } : m;
  } finally {
    sandbox.dispose();
  }
}

import { Outcome } from '../core/outcome.js';
import type { SampleRecord } from '../store/types.js';
import { ErrorGrouper, type ErrorGroup, type ErrorSummary } from './error-groups.js';

/** Operational figures of a run (cost and speed), next to the statistics of its tensor. */
export interface RunStats {
  /** Samples stored (each is one generation, successful or not). */
  samples: number;
  /** Samples whose generation still failed after retries (their K cells are ERROR). */
  generationErrors: number;
  /** Validator cells that are ERROR although the generation succeeded (a predicate threw or timed out). */
  validatorErrors: number;
  /** Provider calls made, retries included. */
  attempts: number;
  /** attempts − samples: calls that were retried. */
  retries: number;
  promptTokens: number;
  completionTokens: number;
  /** USD of the priced calls (system and verifiers) at the configured prices; 0 when nothing was priced. */
  costUsd: number;
  /** Per column k: USD its checks spent (verifiers; 0 for rules). Present when any check was priced. */
  checkCostUsd?: number[];
  /** Calls that reported tokens but whose model has no price: their cost is not in costUsd. */
  unpricedCalls: number;
  /** Samples whose generation came from the response cache (no call made). */
  cachedSamples: number;
  /** Generation latency (ms) over samples with an output. */
  latencyMs: { mean: number | null; p50: number | null; p95: number | null; max: number | null };
  /**
   * The most frequent error messages (generation and validator errors), grouped by what they say (messages
   * differing only in ids are one group), most frequent first: why cells are ERROR.
   */
  topErrors: ErrorGroup[];
  /** Distinct error groups in the run (topErrors lists the first TOP_ERRORS of them). */
  distinctErrors: number;
  /**
   * Per column k: that rule's error cells grouped by message (a failed generation counts in every column), the
   * RULE_ERRORS largest groups: what an error verdict names as its cause. Absent in stats of older versions.
   */
  ruleErrors?: ErrorSummary[];
  /** An agent's runs (samples with a trajectory): their steps and tool calls, summed. Absent when none has one. */
  agent?: AgentStats;
}

/** What an agent did over a run's samples: steps, tool calls per tool, tool errors, runs its step limit cut. */
export interface AgentStats {
  /** Samples whose output came with its steps. */
  trajectories: number;
  steps: { mean: number; max: number };
  toolCalls: number;
  /** Calls and errors per tool, most called first (at most MAX_TOOLS_TRACKED names; the rest summed as "(other)"). */
  tools: { name: string; calls: number; errors: number }[];
  /** Calls that ended in an error (the tool threw or timed out, was not declared, or got arguments that failed its schema). */
  toolErrors: number;
  /** Trajectories their step (or turn) limit ended before a final answer. */
  cutByLimit: number;
  /** Conversations (trajectories with user turns): their turns, and how many their turn limit ended. */
  turns?: { conversations: number; mean: number; max: number; cutByLimit: number };
}

/** Distinct tool names counted one by one; the rest are summed (memory stays flat whatever the agent calls). */
export const MAX_TOOLS_TRACKED = 100;
const OTHER_TOOLS = '(other)';

/** Error groups listed in RunStats (reports show fewer, then "and N more"). */
export const TOP_ERRORS = 20;
/** Error groups kept per rule in RunStats.ruleErrors. */
export const RULE_ERRORS = 5;

/** The error groups of RunStats as an ErrorSummary (for errorSummaryLines). */
export function errorSummaryOf(st: RunStats): ErrorSummary {
  return { total: st.generationErrors + st.validatorErrors, distinct: st.distinctErrors ?? st.topErrors.length, groups: st.topErrors };
}

/** Accumulates RunStats sample by sample, keeping only numbers (never outputs) so memory stays flat. */
export class StatsAccumulator {
  private samples = 0;
  private generationErrors = 0;
  private validatorErrors = 0;
  private attempts = 0;
  private promptTokens = 0;
  private completionTokens = 0;
  private costUsd = 0;
  private checkCostUsd: number[] | undefined;
  private unpricedCalls = 0;
  private cachedSamples = 0;
  private latencies: number[] = [];
  private errors = new ErrorGrouper();
  private ruleErrors: ErrorGrouper[] = [];
  private agent:
    | {
        trajectories: number;
        steps: number;
        maxSteps: number;
        calls: number;
        errors: number;
        cut: number;
        tools: Map<string, { calls: number; errors: number }>;
        conversations: number;
        turns: number;
        maxTurns: number;
        cutTurns: number;
      }
    | undefined;

  private addTrajectory(t: NonNullable<SampleRecord['trajectory']>): void {
    const a = (this.agent ??= {
      trajectories: 0,
      steps: 0,
      maxSteps: 0,
      calls: 0,
      errors: 0,
      cut: 0,
      tools: new Map(),
      conversations: 0,
      turns: 0,
      maxTurns: 0,
      cutTurns: 0,
    });
    a.trajectories++;
    a.steps += t.steps.length;
    a.maxSteps = Math.max(a.maxSteps, t.steps.length);
    if (t.ended === 'max-steps' || t.ended === 'max-turns') a.cut++;
    if (t.turns !== undefined) {
      a.conversations++;
      a.turns += t.turns;
      a.maxTurns = Math.max(a.maxTurns, t.turns);
      if (t.ended === 'max-turns') a.cutTurns++;
    }
    for (const s of t.steps)
      for (const c of s.toolCalls) {
        a.calls++;
        const name = a.tools.has(c.name) || a.tools.size < MAX_TOOLS_TRACKED ? c.name : OTHER_TOOLS;
        const tool = a.tools.get(name) ?? { calls: 0, errors: 0 };
        tool.calls++;
        if (c.error !== undefined) {
          tool.errors++;
          a.errors++;
        }
        a.tools.set(name, tool);
      }
  }

  private countError(message: string): void {
    this.errors.add(message);
  }

  private countRuleError(k: number, message: string): void {
    while (this.ruleErrors.length <= k) this.ruleErrors.push(new ErrorGrouper());
    this.ruleErrors[k].add(message);
  }

  add(s: SampleRecord): void {
    this.samples++;
    this.attempts += s.attempts;
    if (s.generationError !== undefined) {
      this.generationErrors++;
      this.countError(s.generationError);
      s.outcomes.forEach((o, k) => {
        if (o === Outcome.ERROR) this.countRuleError(k, s.generationError!);
      });
    } else {
      s.outcomes.forEach((o, k) => {
        if (o !== Outcome.ERROR) return;
        this.validatorErrors++;
        this.countError(s.errors?.[k] ?? 'error');
        this.countRuleError(k, s.errors?.[k] ?? 'error');
      });
      this.latencies.push(s.latencyMs);
    }
    this.promptTokens += s.usage?.promptTokens ?? 0;
    this.completionTokens += s.usage?.completionTokens ?? 0;
    if (s.cost) {
      this.costUsd += s.cost.usd;
      this.unpricedCalls += s.cost.unpriced ?? 0;
      s.cost.checks?.forEach((c, k) => {
        if (c === undefined) return;
        this.checkCostUsd ??= [];
        while (this.checkCostUsd.length <= k) this.checkCostUsd.push(0);
        this.checkCostUsd[k] += c;
      });
    }
    if (s.cached) this.cachedSamples++;
    if (s.trajectory) this.addTrajectory(s.trajectory);
  }

  /** USD spent so far (stop rules read it). */
  get spentUsd(): number {
    return this.costUsd;
  }

  get count(): number {
    return this.samples;
  }

  get generationErrorCount(): number {
    return this.generationErrors;
  }

  get retryCount(): number {
    return this.attempts - this.samples;
  }

  snapshot(): RunStats {
    const xs = Float64Array.from(this.latencies).sort();
    const q = (p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] : null);
    const mean = xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
    const errors = this.errors.summary(TOP_ERRORS);
    return {
      samples: this.samples,
      generationErrors: this.generationErrors,
      validatorErrors: this.validatorErrors,
      attempts: this.attempts,
      retries: this.attempts - this.samples,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      costUsd: this.costUsd,
      ...(this.checkCostUsd ? { checkCostUsd: [...this.checkCostUsd] } : {}),
      unpricedCalls: this.unpricedCalls,
      cachedSamples: this.cachedSamples,
      latencyMs: { mean, p50: q(0.5), p95: q(0.95), max: xs.length ? xs[xs.length - 1] : null },
      topErrors: errors.groups,
      distinctErrors: errors.distinct,
      ...(this.ruleErrors.length ? { ruleErrors: this.ruleErrors.map((g) => g.summary(RULE_ERRORS)) } : {}),
      ...(this.agent ? { agent: this.agentStats(this.agent) } : {}),
    };
  }

  private agentStats(a: NonNullable<StatsAccumulator['agent']>): AgentStats {
    return {
      trajectories: a.trajectories,
      steps: { mean: a.steps / a.trajectories, max: a.maxSteps },
      toolCalls: a.calls,
      tools: [...a.tools].map(([name, t]) => ({ name, ...t })).sort((x, y) => y.calls - x.calls || (x.name < y.name ? -1 : 1)),
      toolErrors: a.errors,
      cutByLimit: a.cut,
      ...(a.conversations ? { turns: { conversations: a.conversations, mean: a.turns / a.conversations, max: a.maxTurns, cutByLimit: a.cutTurns } } : {}),
    };
  }
}

export function computeStats(samples: Iterable<SampleRecord>): RunStats {
  const acc = new StatsAccumulator();
  for (const s of samples) acc.add(s);
  return acc.snapshot();
}

/**
 * `assay/vitest`: reliability tests written as Vitest tests. `describeReliability(name, options)` is one
 * assay experiment (inputs × samples, validators and verifiers); each rule is one test that passes or fails by
 * assay's verdict. This file loads nothing but Vitest: the runner, the store and the judges are imported when
 * the first block runs (docs/vitest.md).
 */
import { beforeAll, describe, test } from 'vitest';
import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';
import { HOOK_SLACK_MS, hookTimeoutMs } from './limits.js';
import { blockedText, watchThread } from './thread.js';
import type { InputValue } from '../core/validator.js';
import type { ReliabilityOptions, RunOutcome } from './types.js';

/** The cache for a model your system function calls through the AI SDK (keyed by its request and sample j). */
export { withAssayCache } from '../providers/ai-sdk-cache.js';
export type { ReliabilityOptions, RuleOutcome, RunOutcome, SystemCallContext, SystemFunction, ValidatorSpec, VerifierSpec } from './types.js';

/** What a rule test leaves for the reporter (assay/vitest/reporter) in its `meta.assay`. */
export interface AssayTaskMeta {
  run: RunOutcome;
  rule: string;
  /** Where describeReliability was called, for CI annotations. */
  file?: string;
  line?: number;
}

declare module 'vitest' {
  interface TaskMeta {
    assay?: AssayTaskMeta;
  }
}

const RELIABILITY_ERROR = Symbol.for('assay.ReliabilityError');

/** A rule test that does not pass: its message is assay's; its one stack frame the describeReliability call. */
export class ReliabilityError extends AssayError {
  constructor(message: string, at: { file?: string; line?: number; column?: number } = {}) {
    super(message, ExitCode.VERDICT_FAILED);
    this.name = 'ReliabilityError';
    setMarker(this, RELIABILITY_ERROR);
    const frame = at.file !== undefined && at.line !== undefined ? `\n    at describeReliability (${at.file}:${at.line}:${at.column ?? 1})` : '';
    this.stack = `${this.name}: ${message}${frame}`;
  }

  static override isInstance(err: unknown): err is ReliabilityError {
    return hasMarker(err, RELIABILITY_ERROR);
  }
}

/** File and line of the caller of describeReliability, from the stack (Vitest maps it to the source). */
function callSite(): { file?: string; line?: number; column?: number } {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  for (const f of frames) {
    const m = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?$/.exec(f.trim());
    if (!m || /[\\/]vitest[\\/]index\.[jt]s$/.test(m[1]) || m[1].includes('node_modules') || m[1].startsWith('node:')) continue;
    return { file: m[1].replace(/^file:\/\//, ''), line: Number(m[2]), column: Number(m[3]) };
  }
  return {};
}

/** A rule whose run had not ended when the hook stopped waiting: why, with the blocked thread named when it was. */
function stalledText(rule: string, s: { waitMs: number; gapMs: number }): string {
  const why = blockedText(s.gapMs) ?? 'the thread was not seen blocked: something the run waits for (the store) did not answer once it was stopped';
  return `${rule}: no verdict: the run had not ended ${(s.waitMs / 1000).toFixed(1)} s after it started (runTimeoutMs plus time to store it)\n  ${why}`;
}

/** The rules of a block, in the tensor's order: validators, then verifiers. */
function ruleNames(o: Pick<ReliabilityOptions, 'validators' | 'verifiers'>): string[] {
  return [...(o?.validators ?? []), ...(o?.verifiers ?? [])].map((r, i) => (typeof r?.name === 'string' && r.name ? r.name : `rule ${i + 1}`));
}

/**
 * One reliability experiment as a Vitest describe block: the experiment runs once (in beforeAll) through
 * assay's runner and store, and each validator and verifier is a test that passes on a PASS verdict, fails on
 * FAIL or error, and on an inconclusive one fails saying how many more samples decide it (or is skipped with
 * `onInconclusive: 'skip'`).
 */
export function describeReliability<I extends InputValue>(name: string, options: ReliabilityOptions<I>): void {
  const site = callSite();
  describe(name, () => {
    let run: Promise<RunOutcome> | undefined;
    let finished = false;
    let stalled: { waitMs: number; gapMs: number } | undefined;
    let file = site.file;
    const outcome = () =>
      (run ??= import('./engine.js')
        .then((e) => e.runReliability({ name, file: file ?? `${name}.test`, options: options as unknown as ReliabilityOptions }))
        .finally(() => (finished = true)));
    // Vitest hands hooks their fixtures first (an object pattern it parses) and the suite second.
    beforeAll(
      // eslint-disable-next-line no-empty-pattern
      async ({}, suite) => {
        file = suite.file?.filepath ?? file;
        // A block that cannot run (a mistake in its options, a store it cannot open) fails each rule's test with the
        // reason, rather than the hook, which would leave the rules merely skipped. A run still going at the hook's
        // own limit (the thread was blocked, so no timeout fired) is left: the rule tests fail saying so.
        const thread = watchThread();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const waitMs = hookTimeoutMs(options?.runTimeoutMs);
        const over = new Promise<'over'>((resolve) => (timer = setTimeout(() => resolve('over'), waitMs)));
        const ended = await Promise.race([
          outcome().then(
            () => 'done' as const,
            () => 'done' as const,
          ),
          over,
        ]);
        clearTimeout(timer);
        thread.stop();
        if (ended === 'over') stalled = { waitMs, gapMs: thread.longestGapMs() };
      },
      hookTimeoutMs(options?.runTimeoutMs) + HOOK_SLACK_MS,
    );
    const rules = ruleNames(options);
    // A block without a rule has no test to fail: one stands in, failing with the reason (no validators, no options).
    if (!rules.length) test('options', async () => void (await outcome()));
    for (const rule of rules) {
      test(rule, async (ctx) => {
        if (stalled && !finished) throw new ReliabilityError(stalledText(rule, stalled), site);
        const r = await outcome();
        const found = r.rules.find((x) => x.name === rule);
        if (!found) throw new ReliabilityError(`${rule}: no verdict in run ${r.runId}`, site);
        ctx.task.meta.assay = {
          run: r,
          rule,
          ...(file !== undefined ? { file } : {}),
          ...(site.line !== undefined && (site.file === undefined || site.file === file) ? { line: site.line } : {}),
        };
        if (found.test === 'skip') ctx.skip(found.message);
        if (found.test === 'fail') throw new ReliabilityError(found.message, site);
      });
    }
  });
}

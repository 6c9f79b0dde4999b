import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { ValidatorMeta } from '../core/validator.js';
import { computeStats } from '../run/stats.js';
import type { SampleRecord } from '../store/types.js';
import { buildJsonReport } from './json.js';
import { renderJunitReport } from './junit.js';
import { renderMarkdownReport } from './markdown.js';
import { errorCausesText, rulesText, type ReportMeta } from './meta.js';
import { formatTerminalSummary } from './terminal.js';

// An error verdict names its cause (issue 26, item 2): the largest error groups of the rule, with counts and
// their first message, in every report — not only "every checked cell is an error (40)".

const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
const { PASS: P, ERROR: E } = Outcome;
const AUTH = 'generation failed after 1 attempt(s): 401 Unauthorized: missing OPENAI_API_KEY';
const metas: ValidatorMeta[] = [
  { name: 'short', message: 'Output too long', minSuccess: 0.5, weight: 1, kind: 'validator' },
  { name: 'judge', message: 'polite', minSuccess: 0.5, weight: 1, kind: 'verifier' },
];

/** 2 inputs × 20 samples: 34 generations fail with a 401, 4 time out; of the 2 that answered, the judge errs on both. */
function fixture() {
  const samples: SampleRecord[] = [];
  const cells: OutcomeCode[] = [];
  for (let i = 0; i < 2; i++)
    for (let j = 0; j < 20; j++) {
      const n = i * 20 + j;
      if (n < 34)
        samples.push({ i, j, generationError: AUTH, generationErrorKind: 'client', outcomes: [E, E], errors: [AUTH, AUTH], latencyMs: 1, attempts: 1 });
      else if (n < 38) {
        const msg = `generation failed after 5 attempt(s): no answer within 5000 ms`;
        samples.push({ i, j, generationError: msg, generationErrorKind: 'timeout', outcomes: [E, E], errors: [msg, msg], latencyMs: 1, attempts: 5 });
      } else samples.push({ i, j, output: 'hi', outcomes: [P, E], errors: [undefined, 'judge: HTTP 500: overloaded'], latencyMs: 1, attempts: 1 });
      cells.push(...samples[samples.length - 1].outcomes);
    }
  const tensor = new ReliabilityTensor(2, 20, 2, Uint8Array.from(cells));
  const summary = summarize(tensor, metas, {});
  const meta: ReportMeta = {
    runId: 'r1',
    name: 'bot',
    status: 'complete',
    systemId: 'function:bot',
    createdAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    inputs: ['a', 'b'],
    stats: computeStats(samples),
  };
  return { summary, meta };
}

describe("an error verdict's causes", () => {
  it('one function names the largest groups of the rule with counts and their first message', () => {
    const { summary, meta } = fixture();
    expect(summary.validators.map((v) => v.verdict)).toEqual(['error', 'error']);
    expect(errorCausesText(summary.validators[0], meta.stats)).toBe(
      `error causes: ×34 "${AUTH}", ×4 "generation failed after 5 attempt(s): no answer within 5000 ms"`,
    );
    // The judge's own errors are its rule's, not the other rule's.
    expect(errorCausesText(summary.validators[1], meta.stats)).toContain('×2 "judge: HTTP 500: overloaded"');
    expect(errorCausesText(summary.validators[0], meta.stats)).not.toContain('judge');
    // A verdict that is not an error says nothing more.
    expect(errorCausesText({ ...summary.validators[0], verdict: 'fail' }, meta.stats)).toBe('');
  });

  it('is in the JUnit <error> message, the Markdown report, the terminal table and the JSON report', () => {
    const { summary, meta } = fixture();
    const junit = renderJunitReport(summary, meta);
    expect(junit).toMatch(/<error type="error-share" message="error: [^"]*; error causes: ×34 &quot;generation failed after 1 attempt\(s\): 401 Unauthorized/);
    expect(junit).toMatch(
      /<error type="infrastructure" message="no decided cell: 40 error\(s\); error causes: ×34 &quot;generation failed after 1 attempt\(s\): 401 Unauthorized[^"]*×2 &quot;judge: HTTP 500/,
    );
    expect(renderMarkdownReport(summary, meta)).toContain(`error causes: ×34 "${AUTH}"`);
    expect(formatTerminalSummary(summary, meta)).toContain(`error causes: ×34 "${AUTH}"`);
    const json = buildJsonReport(summary, meta) as { stats: { ruleErrors: { total: number; groups: { message: string; count: number }[] }[] } };
    expect(json.stats.ruleErrors[0]).toMatchObject({ total: 38, groups: [{ message: AUTH, count: 34 }, { count: 4 }] });
    const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object);
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
  });
});

// A run's K columns named as what they are (issue 26, item 8: "K=1 validators" for a run whose only rule is a verifier).
describe('rulesText', () => {
  it('names validators, verifiers, or both', () => {
    expect(rulesText(['verifier'])).toBe('1 verifier');
    expect(rulesText(['validator', 'validator', 'validator'])).toBe('3 validators');
    expect(rulesText(['validator', undefined, 'verifier'])).toBe('3 rules (2 validators, 1 verifier)');
  });
  it('is in the terminal and Markdown headers', () => {
    const { summary, meta } = fixture();
    expect(formatTerminalSummary(summary, meta)).toContain('× K=2 rules (1 validator, 1 verifier) ·');
    expect(renderMarkdownReport(summary, meta)).toContain('× 2 rules (1 validator, 1 verifier) ·');
  });
  it("labels the per-input and per-sample tables' pooled rate (issue 26, item 8: the job summary pooled over rules without saying so)", () => {
    const { summary, meta } = fixture();
    const md = renderMarkdownReport(summary, meta);
    expect(md).toContain("_Rate: all 2 rules' cells of the input pooled;");
    expect(md).toContain('| # | Input | Rate (rules pooled) |');
    expect(md).toContain('| Sample | Rate (rules pooled) |');
  });
});

import { describe, expect, it } from 'vitest';
import { ruleAsks } from './rule-asks.js';

describe('ruleAsks: what a grader is shown of a rule before grading', () => {
  it("shows the rule's check or the judge's instructions, never its failure message", () => {
    const verifier = { message: 'verifier polite judged the output FAIL', source: 'LLM judge openai:gpt-4o-mini: The response is polite.' };
    expect(ruleAsks(verifier)).toBe('LLM judge openai:gpt-4o-mini: The response is polite.');
    expect(ruleAsks({ message: 'Output does not satisfy: word count at most 20', source: 'word count at most 20' })).toBe('word count at most 20');
  });

  it('a rule stored without its check (a function in assay.config.ts) is described by its message, said as what it is', () => {
    expect(ruleAsks({ message: 'too long' })).toBe('(its check is not stored; its message when it fails: "too long")');
  });
});

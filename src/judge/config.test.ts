import { describe, expect, it } from 'vitest';
import { verifierFromJudge } from './config.js';
import type { Judge } from './types.js';

// A verifier is described by what it asks, not by a verdict it may never give (issue 26, item 8: a verifier shown
// as "verifier polite judged the output FAIL" beside a PASS).
const judge: Judge = { id: 'openai:judge', verify: async () => ({ outcome: 'pass', reasons: [], latencyMs: 0 }) };

describe('verifierFromJudge', () => {
  it('describes a verifier by its instructions, else by its judge; a message given is kept', () => {
    expect(verifierFromJudge(judge, { name: 'polite', minSuccess: 0.9, instructions: 'The answer is polite.' }).message).toBe('The answer is polite.');
    expect(verifierFromJudge(judge, { name: 'polite', minSuccess: 0.9, instructions: ['Polite.', 'No blame.'] }).message).toBe('Polite. No blame.');
    expect(verifierFromJudge(judge, { name: 'polite', minSuccess: 0.9 }).message).toBe('LLM judge openai:judge');
    expect(verifierFromJudge(judge, { name: 'polite', minSuccess: 0.9, message: 'Be polite', instructions: 'x' }).message).toBe('Be polite');
    expect(verifierFromJudge(judge, { name: 'polite', minSuccess: 0.9, instructions: 'x' }).message).not.toMatch(/judged the output FAIL/);
  });
});

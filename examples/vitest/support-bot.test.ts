import { describeReliability } from 'assay/vitest';
import { inject } from 'vitest';

// The system under test as one of assay's providers: an OpenAI-compatible endpoint (here the local mock).
describeReliability('support bot', {
  inputs: ['Where is my order?', 'I want a refund'],
  samples: 30,
  system: { openai: { baseURL: inject('llmBaseURL'), model: 'support-bot' } },
  validators: [
    // Passes: every answer is short.
    { name: 'short', check: { type: 'words', max: 40 }, minSuccess: 0.9 },
    // Fails on purpose: a third of the refund answers say "sorry" three times.
    { name: 'no-apology-loop', check: { type: 'max-count', pattern: 'sorry', flags: 'i', max: 1 }, minSuccess: 0.95 },
  ],
});

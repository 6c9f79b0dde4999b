import type { InputValue, Validator } from '../../core/validator.js';
import type { SystemUnderTest } from '../../providers/types.js';

/** A system that answers from a script, one text per attempt (the last one repeats), recording what it was sent. */
export function scripted(texts: string[], usage = { promptTokens: 100, completionTokens: 20 }) {
  const sent: InputValue[] = [];
  const sys: SystemUnderTest = {
    id: 'scripted',
    generate: async (input) => {
      sent.push(input);
      return { text: texts[Math.min(sent.length - 1, texts.length - 1)], latencyMs: 1, usage };
    },
  };
  return { sys, sent };
}

export const noDigits: Validator = { name: 'no_digits', message: 'Do not use digits.', minSuccess: 0.9, predicate: (o) => !/\d/.test(o) };
export const short: Validator = { name: 'short', message: 'Keep it under 40 characters.', minSuccess: 0.9, predicate: (o) => o.length < 40 };

import type { InputValue } from '../core/validator.js';
import { UsageError } from '../errors.js';

/** The default augmentation of §4.1: the input, then the reasons of the last rejection. */
export const FEEDBACK_TEMPLATE = `{input}

Your previous answer was rejected for these reasons:
{reasons}
Write a new answer that fixes every one of them.`;

const FIELDS = ['prompt', 'input', 'question', 'query'];

export function checkTemplate(template: string): void {
  if (!template.includes('{reasons}')) {
    throw new UsageError(`guard feedback template: expected a template containing {reasons}, found ${JSON.stringify(template.slice(0, 60))}`);
  }
}

/** Replace placeholders in one pass, so a `{reasons}` inside the input is not expanded. */
function fill(template: string, input: string, reasons: string): string {
  return template.replace(/\{(input|reasons)\}/g, (_m, key: string) => (key === 'input' ? input : reasons));
}

/** The input sent on a retry: the original input augmented with the last reasons. */
export function augmentInput(input: InputValue, reasons: readonly string[], template = FEEDBACK_TEMPLATE, field?: string): InputValue {
  const list = reasons.map((r) => `- ${r}`).join('\n');
  if (typeof input === 'string') return fill(template, input, list);
  const key = field ?? FIELDS.find((f) => typeof input[f] === 'string');
  if (key !== undefined && typeof input[key] === 'string') return { ...input, [key]: fill(template, input[key] as string, list) };
  // No text field to rewrite: hand the reasons over in a field of their own.
  return { ...input, feedback: fill(template, '', list).trim() };
}

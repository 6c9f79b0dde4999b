import type { ValidatorMeta } from '../core/validator.js';

/**
 * What a grader is shown of a rule before grading (the terminal and the dashboard's page): its check, or its
 * judge's instructions. Never its message alone as if it were the question: the message is what the rule says
 * when it fails (a verifier's: its instructions by default), which read before grading would state a
 * verdict the rule may not have given, and anchor the grader.
 */
export function ruleAsks(rule: Pick<ValidatorMeta, 'message' | 'source'>): string {
  return rule.source ?? `(its check is not stored; its message when it fails: ${JSON.stringify(rule.message)})`;
}

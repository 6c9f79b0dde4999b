/** `assay/guard`: validator- and verifier-driven retries around a system, at run time. Listed in docs/api.md. */
export { guard, guardedCall, type GuardedSystem } from '../guard/guard.js';
export type { GuardOptions, GuardResult, Attempt } from '../guard/types.js';

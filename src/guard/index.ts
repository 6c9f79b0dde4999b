export * from './types.js';
export { guard, guardedCall, type GuardedSystem } from './guard.js';
export { augmentInput, FEEDBACK_TEMPLATE } from './feedback.js';
export { openAttemptLog, type AttemptLog, type AttemptRow, type CallRow } from './attempt-log.js';

export * from './types.js';
export { guard, guardedCall, type GuardedSystem } from './guard.js';
export { augmentInput, FEEDBACK_TEMPLATE } from './feedback.js';
export { storeAttemptSink, attemptSinkOf } from './attempt-log.js';

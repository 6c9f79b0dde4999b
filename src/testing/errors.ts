import { ArgumentError } from '../errors.js';

/**
 * What `fn` throws, as the ArgumentError it must be (told by its marker, as the code tells it); anything else
 * it throws is rethrown, and throwing nothing fails the test.
 */
export function argumentErrorOf(fn: () => unknown): ArgumentError {
  try {
    fn();
  } catch (err) {
    if (ArgumentError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected an ArgumentError, but nothing was thrown');
}

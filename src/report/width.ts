import { lazyPackage } from '../lazy.js';

const stringWidth = lazyPackage<typeof import('string-width')>('string-width');
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Display width in terminal columns (wide CJK and emoji 2, combining marks and ANSI colours 0): string-width's.
 * Printable ASCII is its length, as string-width says too, without loading it: string-width makes an
 * Intl.Segmenter as it loads (≈ 10 ms of a run's start-up, docs/runner.md), which ASCII cells never need.
 */
export function displayWidth(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth().default(text);
}

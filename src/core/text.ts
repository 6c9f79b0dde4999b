/**
 * Text as it comes from files and people: one decider for what every reader and every view does with it.
 */

/** The text without a leading byte-order mark (Windows editors and Excel's "UTF-8 CSV" write one). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

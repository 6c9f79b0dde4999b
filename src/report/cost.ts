import type { RunStats } from '../run/stats.js';
import { formatUsd } from '../run/cost.js';

/**
 * The cost and cache line every report shows (terminal, Markdown, HTML, dashboard): what the run's priced
 * calls cost, split into the system and each verifier, how many calls had no price, and how many samples
 * (and so cells) came from the response cache, and whether that was all of them (a replay). Undefined when there is
 * nothing to say.
 */
export function costSummary(st: RunStats | undefined, columns: readonly { name: string; kind?: string }[]): string | undefined {
  if (!st) return undefined;
  const parts: string[] = [];
  const costUsd = st.costUsd ?? 0;
  if (costUsd > 0 || (st.unpricedCalls ?? 0) > 0 || st.checkCostUsd) {
    const checks = st.checkCostUsd ?? [];
    const checksTotal = checks.reduce((a, b) => a + b, 0);
    const split = checks
      .map((usd, k) => (usd > 0 || columns[k]?.kind === 'verifier' ? `${columns[k]?.name ?? `#${k}`} $${formatUsd(usd)}` : undefined))
      .filter((x): x is string => x !== undefined);
    const detail = split.length ? ` (system $${formatUsd(Math.max(0, costUsd - checksTotal))} · ${split.join(' · ')})` : '';
    parts.push(`cost $${formatUsd(costUsd)}${detail}`);
    if (st.unpricedCalls) parts.push(`${st.unpricedCalls} calls of models without a price, not counted (add them under prices:)`);
  }
  if (st.cachedSamples) {
    const K = columns.length;
    // Every answer replayed: the run is kept (its id is what reports, show and --resume take) but is no new evidence.
    const replay = st.cachedSamples === st.samples ? ': every answer replayed, no new draw of the system' : '';
    parts.push(`${st.cachedSamples} of ${st.samples} samples from the cache (${st.cachedSamples * K} cells)${replay}`);
  }
  return parts.length ? parts.join(' · ') : undefined;
}

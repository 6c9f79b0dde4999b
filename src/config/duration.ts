/**
 * Durations as people write them: "90s", "30m", "12h", "7d", "2w", or a number of seconds. Returns ms,
 * or undefined for anything else (the caller names the field and what it expected).
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseDuration(v: string | number): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? v * 1000 : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(v);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[(m[2] ?? 's').toLowerCase()];
  return ms > 0 ? ms : undefined;
}

export const DURATION_EXPECTED = 'expected a duration such as 90s, 30m, 12h or 7d (or a number of seconds)';

import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { DEFAULT_OUTAGE_MS } from '../store/outage.js';
import { outageTimeout } from './store-flag.js';

describe('outageTimeout', () => {
  it('--outage-timeout, else ASSAY_OUTAGE_TIMEOUT, else 60 s; 0 is no wait; anything else names where it came from', () => {
    expect(outageTimeout(undefined, {})).toBe(DEFAULT_OUTAGE_MS);
    expect(outageTimeout('90s', { ASSAY_OUTAGE_TIMEOUT: '5m' })).toBe(90_000);
    expect(outageTimeout(undefined, { ASSAY_OUTAGE_TIMEOUT: '5m' })).toBe(300_000);
    expect(outageTimeout('0', {})).toBe(0);
    expect(outageTimeout('0s', {})).toBe(0);
    expect(() => outageTimeout('soon', {})).toThrow(UsageError);
    expect(() => outageTimeout('soon', {})).toThrow('--outage-timeout: expected a duration such as 90s, 30m, 12h or 7d (or a number of seconds), found "soon"');
    expect(() => outageTimeout(undefined, { ASSAY_OUTAGE_TIMEOUT: '-1' })).toThrow(/^ASSAY_OUTAGE_TIMEOUT: expected a duration/);
  });
});

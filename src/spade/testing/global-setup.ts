/** Vitest global setup: one visible line when the tests over the benchmark data are skipped. */
import { existsSync } from 'node:fs';
import { SPADE_DATA } from './benchmark-data.js';

export default function setup(): void {
  if (existsSync(SPADE_DATA)) return;
  if (process.env.CI === 'true') console.log(`benchmark data: not found at ${SPADE_DATA}; CI=true, so the tests over it run and fail`);
  else console.log(`benchmark data: not found at ${SPADE_DATA}; the tests over it are skipped (CI=true makes them required)`);
}

export { mulberry32 } from '../prng.js';

/** One Binomial(n, p) draw as n Bernoulli trials. */
export function binomial(rand: () => number, n: number, p: number): number {
  let x = 0;
  for (let t = 0; t < n; t++) if (rand() < p) x++;
  return x;
}

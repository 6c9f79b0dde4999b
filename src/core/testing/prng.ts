/** Small seeded PRNG for simulations in tests (mulberry32): same seed, same stream, on every machine. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One Binomial(n, p) draw as n Bernoulli trials. */
export function binomial(rand: () => number, n: number, p: number): number {
  let x = 0;
  for (let t = 0; t < n; t++) if (rand() < p) x++;
  return x;
}

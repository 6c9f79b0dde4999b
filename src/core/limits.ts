/**
 * Upper bounds on an experiment's design. The reliability tensor is one Uint8Array of N×M×K cells (and the
 * runner keeps an N×M bitmap beside it), so an absurd `samples: 1e12` must be refused up front, as a usage
 * error, before anything is allocated or stored.
 */
export const MAX_SAMPLES = 1_000_000;
/** 100 million cells: 100 MB of tensor, far beyond any real run, well below what a typed array can hold. */
export const MAX_TENSOR_CELLS = 100_000_000;

/** A message naming the fields when N×M×K is too large (or not whole numbers), else undefined. */
export function designProblem(N: number, M: number, K: number): string | undefined {
  if (![N, M, K].every((x) => Number.isSafeInteger(x) && x >= 0)) return `expected whole numbers for inputs × samples × validators, found ${N}×${M}×${K}`;
  const cells = N * M * K;
  if (cells <= MAX_TENSOR_CELLS) return undefined;
  return (
    `expected inputs × samples × (validators + verifiers) ≤ ${MAX_TENSOR_CELLS.toLocaleString('en-US')} tensor cells, ` +
    `found ${N} inputs × ${M} samples × ${K} validators = ${cells.toLocaleString('en-US')}; lower samples or split the inputs`
  );
}

/**
 * The smallest inclusion probability a grade may carry (one in a billion). assay's own draws never go below
 * 1/(N×M) ≥ 1/MAX_TENSOR_CELLS; a smaller one from a file is a mistake, and its weight 1/p squared (Kish's
 * effective size) would overflow a double long before p reaches the smallest one.
 */
export const MIN_PROBABILITY = 1e-9;

/** The message every surface gives for a probability outside [MIN_PROBABILITY, 1], or undefined when it is inside. */
export function probabilityProblem(p: unknown): string | undefined {
  if (typeof p === 'number' && p >= MIN_PROBABILITY && p <= 1) return undefined;
  return `expected a number in [${MIN_PROBABILITY}, 1] (the output's chance of being drawn; below ${MIN_PROBABILITY} is no draw from a run assay can hold)`;
}

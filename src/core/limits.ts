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

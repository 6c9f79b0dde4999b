/**
 * L2-regularised logistic regression and grouped k-fold splits: the fitting side of the learned claim
 * detector (bench/fit-detector.ts), which was tried and not adopted (docs/grounding.md). Pure: no I/O.
 */

export interface LogisticModel {
  /** Intercept first, then one weight per feature (in the features' own units, not standardised). */
  coef: number[];
}

export const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

export function predictLogistic(m: LogisticModel, x: readonly number[]): number {
  let z = m.coef[0];
  for (let j = 0; j < x.length; j++) z += m.coef[j + 1] * x[j];
  return sigmoid(z);
}

/** Solve A x = b (A symmetric positive definite, small) by Gaussian elimination with partial pivoting. */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
    x[r] = s / M[r][r];
  }
  return x;
}

/**
 * Minimise Σ −log-likelihood + (lambda / 2) · ‖w‖² (intercept not penalised) by Newton's method (IRLS),
 * on features standardised to mean 0 and variance 1 over the training rows (so one lambda means the same
 * for every feature); the returned coefficients are mapped back to the raw features.
 * Row weights let each dataset count equally when two are fitted together.
 */
export function fitLogistic(X: readonly (readonly number[])[], y: readonly boolean[], lambda: number, weights?: readonly number[]): LogisticModel {
  const n = X.length;
  const d = n ? X[0].length : 0;
  const w0 = weights ?? new Array<number>(n).fill(1);
  const mean = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  const W = w0.reduce((a, b) => a + b, 0);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) mean[j] += (w0[i] * X[i][j]) / W;
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) sd[j] += (w0[i] * (X[i][j] - mean[j]) ** 2) / W;
  // a constant feature (rounding aside) is left out: weight 0
  const constant = sd.map((v, j) => Math.sqrt(v) <= 1e-9 * Math.max(1, Math.abs(mean[j])));
  for (let j = 0; j < d; j++) sd[j] = constant[j] ? 1 : Math.sqrt(sd[j]);
  const Z = X.map((row) => [1, ...row.map((v, j) => (constant[j] ? 0 : (v - mean[j]) / sd[j]))]);
  let beta = new Array<number>(d + 1).fill(0);
  for (let iter = 0; iter < 100; iter++) {
    const grad = new Array<number>(d + 1).fill(0);
    const H = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    for (let i = 0; i < n; i++) {
      let z = 0;
      for (let j = 0; j <= d; j++) z += beta[j] * Z[i][j];
      const p = sigmoid(z);
      const r = w0[i] * (p - (y[i] ? 1 : 0));
      const s = w0[i] * p * (1 - p);
      for (let j = 0; j <= d; j++) {
        grad[j] += r * Z[i][j];
        for (let k = j; k <= d; k++) H[j][k] += s * Z[i][j] * Z[i][k];
      }
    }
    for (let j = 0; j <= d; j++) for (let k = 0; k < j; k++) H[j][k] = H[k][j];
    for (let j = 1; j <= d; j++) {
      grad[j] += lambda * beta[j];
      H[j][j] += lambda;
    }
    H[0][0] += 1e-9; // separable data without penalty: keep the system solvable
    const step = solve(H, grad);
    beta = beta.map((b, j) => b - step[j]);
    if (Math.max(...step.map(Math.abs)) < 1e-10) break;
  }
  const coef = [beta[0] - beta.slice(1).reduce((s, b, j) => s + (b * mean[j]) / sd[j], 0), ...beta.slice(1).map((b, j) => b / sd[j])];
  return { coef };
}

/**
 * Assign groups to k folds: every row of a group (claims of one WiCE item, summaries of one FaithBench
 * source) lands in one fold. Groups are ordered by a seeded shuffle and dealt round-robin, so folds have
 * near-equal numbers of groups.
 */
export function groupFolds(groups: readonly string[], k: number, rnd: () => number): number[] {
  const distinct = [...new Set(groups)];
  for (let i = distinct.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [distinct[i], distinct[j]] = [distinct[j], distinct[i]];
  }
  const foldOf = new Map(distinct.map((g, i) => [g, i % k]));
  return groups.map((g) => foldOf.get(g) as number);
}

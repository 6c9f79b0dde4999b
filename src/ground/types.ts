/** Cosine-similarity thresholds; they belong to the embedder, since cosine scales differ between embedders. */
export interface SupportThresholds {
  /** support_score ≥ strong → STRONG (design: 0.75) */
  strong: number;
  /** support_score ≥ weak → WEAK (design: 0.50); below → UNSUPPORTED */
  weak: number;
}

/** Turns texts into L2-normalised vectors. Every adapter passes the shared embedder contract suite. */
export interface Embedder {
  readonly id: string;
  readonly dimension: number;
  readonly thresholds: SupportThresholds;
  /** One L2-normalised vector per text, packed row-major into one Float32Array of texts.length × dimension. */
  embed(texts: string[]): Promise<Float32Array>;
  /** Token count with the embedder's own tokenizer (for chunking). */
  countTokens(text: string): number;
}

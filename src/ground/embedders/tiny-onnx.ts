/**
 * Test support: a tiny ONNX model with BERT's interface (inputs input_ids, attention_mask,
 * token_type_ids: int64 [batch, sequence]; output last_hidden_state: float [batch, sequence, hidden]),
 * hand-encoded as protobuf. Graph: Gather(word, input_ids) + Gather(type, token_type_ids), times the
 * attention mask. Weights are seeded pseudo-random, returned so a test can compute the expected output.
 */

import { mulberry32 } from '../../core/prng.js';

// --- a minimal protobuf writer (varint, length-delimited, fixed32 floats) ---
type Field = Uint8Array;

function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}
const cat = (parts: (Uint8Array | number[])[]) => {
  const len = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};
const int = (field: number, v: number | bigint): Field => new Uint8Array([...varint((field << 3) | 0), ...varint(v)]);
const bytes = (field: number, b: Uint8Array): Field => cat([varint((field << 3) | 2), varint(b.length), b]);
const str = (field: number, s: string): Field => bytes(field, new TextEncoder().encode(s));
const msg = (field: number, ...parts: Field[]): Field => bytes(field, cat(parts));

const FLOAT = 1;
const INT64 = 7;

function tensorType(field: number, elem: number, dims: (number | string)[]): Field {
  const shape = dims.map((d) => (typeof d === 'number' ? msg(1, int(1, d)) : msg(1, str(2, d))));
  return msg(field, msg(1, int(1, elem), msg(2, ...shape)));
}
const valueInfo = (field: number, name: string, elem: number, dims: (number | string)[]) => msg(field, str(1, name), tensorType(2, elem, dims));

function floatTensor(name: string, dims: number[], data: Float32Array): Field {
  return msg(5, ...dims.map((d) => int(1, d)), int(2, FLOAT), str(8, name), bytes(9, new Uint8Array(data.buffer.slice(0))));
}
function int64Tensor(name: string, values: number[]): Field {
  const raw = new BigInt64Array(values.map((v) => BigInt(v)));
  return msg(5, int(1, values.length), int(2, INT64), str(8, name), bytes(9, new Uint8Array(raw.buffer)));
}
function node(op: string, inputs: string[], outputs: string[], ...attrs: Field[]): Field {
  return msg(1, ...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)), str(3, `${op}_${outputs[0]}`), str(4, op), ...attrs);
}

export interface TinyBert {
  onnx: Uint8Array;
  hidden: number;
  /** vocab × hidden, row-major */
  word: Float32Array;
  /** 2 × hidden */
  type: Float32Array;
}

export function buildTinyBert(vocabSize: number, hidden = 8, seed = 7): TinyBert {
  const uniform = mulberry32(seed);
  const rnd = () => uniform() - 0.5;
  const word = new Float32Array(vocabSize * hidden).map(() => rnd());
  const type = new Float32Array(2 * hidden).map(() => rnd() * 0.1);
  const graph = msg(
    7,
    node('Gather', ['word_embeddings', 'input_ids'], ['w']),
    node('Gather', ['type_embeddings', 'token_type_ids'], ['t']),
    node('Add', ['w', 't'], ['e']),
    node('Cast', ['attention_mask'], ['m'], msg(5, str(1, 'to'), int(3, FLOAT), int(20, 2))),
    node('Unsqueeze', ['m', 'last_axis'], ['m3']),
    node('Mul', ['e', 'm3'], ['last_hidden_state']),
    str(2, 'tiny-bert'),
    floatTensor('word_embeddings', [vocabSize, hidden], word),
    floatTensor('type_embeddings', [2, hidden], type),
    int64Tensor('last_axis', [-1]),
    valueInfo(11, 'input_ids', INT64, ['batch_size', 'sequence_length']),
    valueInfo(11, 'attention_mask', INT64, ['batch_size', 'sequence_length']),
    valueInfo(11, 'token_type_ids', INT64, ['batch_size', 'sequence_length']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch_size', 'sequence_length', hidden]),
  );
  const onnx = cat([int(1, 8), str(2, 'assay-test'), graph, msg(8, str(1, ''), int(2, 13))]);
  return { onnx, hidden, word, type };
}

export interface TinyClassifier {
  onnx: Uint8Array;
  labels: number;
  /** vocab × labels, row-major: each token's contribution to each logit */
  word: Float32Array;
  /** 2 × labels: each segment's (token type's) contribution, per token */
  type: Float32Array;
}

/**
 * A tiny sequence classifier with BERT's inputs (input_ids, attention_mask, token_type_ids) and a
 * cross-encoder's output (logits: float [batch, labels]): logits = Σ over unmasked tokens of
 * (word[input_id] + type[token_type_id]). Rows of `word` are seeded noise (±0.05) except those given in `rows`,
 * so a test can make chosen word pieces decide the label, and compute every logit by hand.
 */
export function buildTinyClassifier(vocabSize: number, labels = 3, rows: Record<number, number[]> = {}, seed = 11): TinyClassifier {
  const uniform = mulberry32(seed);
  const word = new Float32Array(vocabSize * labels).map(() => (uniform() - 0.5) * 0.1);
  for (const [id, row] of Object.entries(rows)) word.set(row, Number(id) * labels);
  // Small: it is added once per token, so over a long pair it must not outweigh the chosen rows.
  const type = new Float32Array(2 * labels).map(() => (uniform() - 0.5) * 0.002);
  const graph = msg(
    7,
    node('Gather', ['word_embeddings', 'input_ids'], ['w']),
    node('Gather', ['type_embeddings', 'token_type_ids'], ['t']),
    node('Add', ['w', 't'], ['e']),
    node('Cast', ['attention_mask'], ['m'], msg(5, str(1, 'to'), int(3, FLOAT), int(20, 2))),
    node('Unsqueeze', ['m', 'last_axis'], ['m3']),
    node('Mul', ['e', 'm3'], ['x']),
    node('ReduceSum', ['x', 'token_axis'], ['logits'], msg(5, str(1, 'keepdims'), int(3, 0), int(20, 2))),
    str(2, 'tiny-classifier'),
    floatTensor('word_embeddings', [vocabSize, labels], word),
    floatTensor('type_embeddings', [2, labels], type),
    int64Tensor('last_axis', [-1]),
    int64Tensor('token_axis', [1]),
    valueInfo(11, 'input_ids', INT64, ['batch_size', 'sequence_length']),
    valueInfo(11, 'attention_mask', INT64, ['batch_size', 'sequence_length']),
    valueInfo(11, 'token_type_ids', INT64, ['batch_size', 'sequence_length']),
    valueInfo(12, 'logits', FLOAT, ['batch_size', labels]),
  );
  const onnx = cat([int(1, 8), str(2, 'assay-test'), graph, msg(8, str(1, ''), int(2, 13))]);
  return { onnx, labels, word, type };
}

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

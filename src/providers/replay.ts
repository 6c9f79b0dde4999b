import { readFileSync } from 'node:fs';
import { withoutBom } from '../core/text.js';
import { extname } from 'node:path';
import type { CsvError } from 'csv-parse/sync';
import { lazyPackage } from '../lazy.js';
import type { InputValue } from '../core/validator.js';
import { UsageError } from '../errors.js';
import { abortableSleep, abortError, excerpt } from './errors.js';
import { inputKey } from './template.js';
import { ProviderError, type GenerateOptions, type Generation, type SystemUnderTest } from './types.js';
import { maxOf } from '../core/arrays.js';

// csv-parse loads with the first CSV file (start-up, docs/runner.md).
const csvParse = lazyPackage<typeof import('csv-parse/sync')>('csv-parse/sync');

/** One recorded output: matched by `input`, or by input index `i` (and sample index `j`). */
export interface ReplayRow {
  output: string;
  input?: InputValue;
  i?: number;
  j?: number;
  /** Recorded wall time, reported as the generation's latency when present. */
  latencyMs?: number;
  /** 1-based line of the file where the row starts, for messages. */
  line: number;
}

export interface ReplaySystemOptions {
  /** Path of the JSONL or CSV file (absolute, or relative to the process's cwd; the factory resolves it). */
  file: string;
  /** Wait this long before answering (honouring the signal), to pace a replay or exercise timeouts. */
  latencyMs?: number;
}

/**
 * Recorded outputs replayed as a system under test, to validate logs one already has.
 * Sample j of input i is the j-th recording for that input (by `input` text, or by `i`/`j`).
 */
export class ReplaySystem implements SystemUnderTest {
  readonly id: string;
  private readonly byIndex = new Map<number, Map<number, ReplayRow>>();
  private readonly byInput = new Map<string, ReplayRow[]>();
  private readonly inputsInOrder: InputValue[] = [];

  constructor(
    private readonly options: ReplaySystemOptions,
    rows: ReplayRow[] = loadReplayFile(options.file),
  ) {
    this.id = `replay:${options.file}`;
    const nextJ = new Map<number, number>();
    for (const row of rows) {
      if (row.i !== undefined) {
        const j = row.j ?? nextJ.get(row.i) ?? 0;
        nextJ.set(row.i, Math.max(nextJ.get(row.i) ?? 0, j + 1));
        const samples = this.byIndex.get(row.i) ?? new Map<number, ReplayRow>();
        const prior = samples.get(j);
        if (prior) throw usage(options.file, row.line, `a second recording for i=${row.i}, j=${j} (the first is on line ${prior.line})`);
        samples.set(j, row);
        this.byIndex.set(row.i, samples);
      } else if (row.input !== undefined) {
        const key = inputKey(row.input);
        const list = this.byInput.get(key);
        if (list) list.push(row);
        else {
          this.byInput.set(key, [row]);
          this.inputsInOrder.push(row.input);
        }
      }
    }
  }

  /** The distinct recorded inputs, in file order (for configs that take their inputs from the log). */
  recordedInputs(): InputValue[] {
    return [...this.inputsInOrder];
  }

  /** How many recordings exist for an input (by its index or its value). */
  count(input: InputValue, inputIndex: number): number {
    return (this.byIndex.get(inputIndex)?.size ?? 0) + (this.byInput.get(inputKey(input))?.length ?? 0);
  }

  private find(input: InputValue, i: number, j: number): ReplayRow | undefined {
    return this.byIndex.get(i)?.get(j) ?? this.byInput.get(inputKey(input))?.[j];
  }

  async generate(input: InputValue, { signal, inputIndex, sample }: GenerateOptions): Promise<Generation> {
    if (signal.aborted) throw abortError(signal, this.id);
    if (this.options.latencyMs) await abortableSleep(this.options.latencyMs, signal, this.id);
    const row = this.find(input, inputIndex, sample);
    if (!row) {
      const n = this.count(input, inputIndex);
      throw new ProviderError(
        'invalid_response',
        // No sample index in the message: the cell says which sample, and equal messages group in reports.
        `${this.id}: no recorded output for input #${inputIndex + 1} (${JSON.stringify(excerpt(typeof input === 'string' ? input : JSON.stringify(input), 60))}): ` +
          (n === 0
            ? 'the file has no recording for this input'
            : `the file has only ${n} recording${n === 1 ? '' : 's'} of it, fewer than the samples asked for`),
      );
    }
    return { text: row.output, latencyMs: row.latencyMs ?? 0 };
  }
}

function usage(file: string, line: number, what: string): UsageError {
  return new UsageError(`${file}:${line}: ${what}`, { file, line });
}

/**
 * The experiment a recording implies when the config lists no inputs: its distinct inputs in order of first
 * appearance, and as many samples as the most-recorded input has (an input recorded fewer times gets error
 * cells for the missing samples, shown as such). Every row must then name its `input`.
 */
export function recordedInputs(rows: ReplayRow[], file: string): { inputs: InputValue[]; samples: number } {
  const counts = new Map<string, number>();
  const inputs: InputValue[] = [];
  for (const row of rows) {
    if (row.input === undefined) {
      throw usage(file, row.line, `"input": expected every row to name its input (the config lists no inputs to match "i" against), found a row with only "i"`);
    }
    const key = inputKey(row.input);
    const n = counts.get(key);
    if (n === undefined) inputs.push(row.input);
    counts.set(key, (n ?? 0) + 1);
  }
  if (!inputs.length) throw new UsageError(`${file}: expected at least one recorded row, found none`, { file });
  return { inputs, samples: maxOf(counts.values()) };
}

/** Reads a replay file; the format follows the extension (.jsonl/.ndjson/.json or .csv). */
export function loadReplayFile(file: string): ReplayRow[] {
  let text: string;
  try {
    text = withoutBom(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file}: cannot read the replay file (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { file });
  }
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return parseReplayCsv(text, file);
  if (ext === '.jsonl' || ext === '.ndjson' || ext === '.json') return parseReplayJsonl(text, file);
  throw new UsageError(`${file}: expected a replay file ending in .jsonl, .ndjson or .csv, found "${ext || 'no extension'}"`, { file });
}

/** JSON Lines: one object per line with `output` and `input` or `i` (and optional `j`, `latencyMs`). */
export function parseReplayJsonl(text: string, file: string): ReplayRow[] {
  const rows: ReplayRow[] = [];
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const src = lines[n].trim();
    if (src === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(src);
    } catch (err) {
      throw usage(file, n + 1, `expected a JSON object, found invalid JSON (${(err as Error).message}): ${excerpt(src, 80)}`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw usage(file, n + 1, `expected a JSON object, found ${describe(v)}`);
    rows.push(toRow(v as Record<string, unknown>, file, n + 1, false));
  }
  return rows;
}

/** CSV with a header row: columns `output` and `input` or `i` (and optional `j`, `latencyMs`); RFC 4180 quoting. */
export function parseReplayCsv(text: string, file: string): ReplayRow[] {
  let records: { record: Record<string, string>; raw: string; info: { lines: number } }[];
  try {
    records = csvParse().parse(text, { columns: true, info: true, raw: true, skip_empty_lines: true, bom: true }) as unknown as typeof records;
  } catch (err) {
    const line = err instanceof csvParse().CsvError ? (err as CsvError & { lines?: number }).lines : undefined;
    throw usage(file, line ?? 1, `malformed CSV: ${(err as Error).message}`);
  }
  const columns = records[0] ? Object.keys(records[0].record) : [];
  if (records.length > 0 && !columns.includes('output')) {
    throw usage(file, 1, `expected a header row with an "output" column, found columns ${columns.map((c) => JSON.stringify(c)).join(', ')}`);
  }
  return records.map(({ record, raw, info }) => {
    // info.lines is where the record ends; count back over the newlines inside it to the line where it starts.
    const inner = raw.replace(/^[\r\n]+/, '').replace(/\r?\n$/, '');
    const line = info.lines - (inner.match(/\n/g)?.length ?? 0);
    return toRow(record, file, line, true);
  });
}

function toRow(v: Record<string, unknown>, file: string, line: number, csv: boolean): ReplayRow {
  const blank = (x: unknown) => x === undefined || x === null || (csv && x === '');
  if (v.output === undefined || v.output === null) throw usage(file, line, `expected a field "output" (the recorded output), found ${describe(v.output)}`);
  if (typeof v.output !== 'string') throw usage(file, line, `"output": expected a string, found ${describe(v.output)}`);
  const row: ReplayRow = { output: v.output, line };
  const index = (name: 'i' | 'j'): number | undefined => {
    const x = v[name];
    if (blank(x)) return undefined;
    const n = typeof x === 'string' && /^\s*\d+\s*$/.test(x) ? Number(x) : x;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
      throw usage(file, line, `"${name}": expected a non-negative integer index, found ${describe(x)}`);
    }
    return n;
  };
  row.i = index('i');
  row.j = index('j');
  if (row.j !== undefined && row.i === undefined) throw usage(file, line, `"j" is given without "i"; give both, or match by "input"`);
  if (!blank(v.input)) {
    const input = v.input;
    if (typeof input === 'string') row.input = csv ? jsonObjectOr(input) : input;
    else if (input && typeof input === 'object' && !Array.isArray(input)) row.input = input as Record<string, unknown>;
    else throw usage(file, line, `"input": expected a string or an object, found ${describe(input)}`);
  }
  if (row.i === undefined && row.input === undefined)
    throw usage(file, line, `expected a field "input" or an index "i" to match the output to an input, found neither`);
  if (!blank(v.latencyMs)) {
    const ms = Number(v.latencyMs);
    if (!Number.isFinite(ms) || ms < 0) throw usage(file, line, `"latencyMs": expected a non-negative number, found ${describe(v.latencyMs)}`);
    row.latencyMs = ms;
  }
  return row;
}

/** A CSV cell holding a JSON object stands for an object input. */
function jsonObjectOr(text: string): InputValue {
  if (!/^\s*\{/.test(text)) return text;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(excerpt(v, 40))}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

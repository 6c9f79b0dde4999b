import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { lazyPackage } from '../lazy.js';
import type { InputValue } from '../core/validator.js';
import { UsageError } from '../errors.js';
import { loadReplayFile, recordedInputs } from '../providers/replay.js';
import { describeFound } from '../core/issues.js';

// csv-parse loads with the first CSV file (start-up, docs/runner.md).
const csvParse = lazyPackage<typeof import('csv-parse/sync')>('csv-parse/sync');

/**
 * Reads an inputs file named in a config (`inputs: { file: path }`, relative to the config):
 * `.txt` one input per non-empty line, `.jsonl` one JSON string or object per line, `.json` an array,
 * `.csv` a header row then one object per row. Every problem names the file and the line.
 */
export function loadInputsFile(file: string, baseDir: string, from: { configFile: string; field: string }): InputValue[] {
  const abs = resolve(baseDir, file);
  // Shown as the user would write it: next to the config file as it was named on the command line.
  const shown = isAbsolute(file) ? file : join(dirname(from.configFile), file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (err as Error).message;
    throw new UsageError(`${from.configFile}: ${from.field}: expected a readable inputs file, found ${JSON.stringify(file)} (${shown}: ${why})`, {
      file: from.configFile,
      path: from.field,
    });
  }
  text = text.replace(/^\uFEFF/, '');
  const ext = extname(abs).toLowerCase();
  let inputs: InputValue[];
  switch (ext) {
    case '.txt':
      inputs = text.split(/\r?\n/).filter((l) => l.trim() !== '');
      break;
    case '.jsonl':
    case '.ndjson':
      inputs = parseJsonl(text, shown);
      break;
    case '.json':
      inputs = parseJsonArray(text, shown);
      break;
    case '.csv':
      inputs = parseCsvRows(text, shown);
      break;
    default:
      throw new UsageError(`${from.configFile}: ${from.field}: expected a .txt, .jsonl, .json or .csv file, found ${JSON.stringify(file)}`, {
        file: from.configFile,
        path: from.field,
      });
  }
  if (inputs.length === 0) throw new UsageError(`${shown}: expected at least one input, found none`, { file: shown });
  return inputs;
}

function asInput(v: unknown, where: string, file: string, line?: number): InputValue {
  if (typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v))) return v as InputValue;
  throw new UsageError(`${where}: expected a string or an object, found ${describeFound(v)}`, { file, line });
}

function parseJsonl(text: string, file: string): InputValue[] {
  const out: InputValue[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, idx) => {
    if (line.trim() === '') return;
    const where = `${file}:${idx + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (err) {
      throw new UsageError(`${where}: expected one JSON value per line, found ${describeFound(line)} (${(err as Error).message})`, { file, line: idx + 1 });
    }
    out.push(asInput(v, where, file, idx + 1));
  });
  return out;
}

function parseJsonArray(text: string, file: string): InputValue[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    const m = /position (\d+)/.exec((err as Error).message);
    const line = m ? text.slice(0, Number(m[1])).split('\n').length : undefined;
    throw new UsageError(`${file}${line ? `:${line}` : ''}: expected a JSON array of inputs, found invalid JSON (${(err as Error).message})`, { file, line });
  }
  if (!Array.isArray(v)) throw new UsageError(`${file}: expected a JSON array of inputs, found ${describeFound(v)}`, { file });
  return v.map((x, i) => asInput(x, `${file}: [${i}]`, file));
}

function parseCsvRows(text: string, file: string): InputValue[] {
  try {
    const rows = csvParse().parse(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
    return rows;
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new UsageError(`${file}:${e.lines ?? '?'}: expected a CSV row matching the header, found a malformed row (${e.message})`, { file, line: e.lines });
  }
}

/**
 * With `system: { replay: { file } }` and no `inputs`, the recorded inputs and the most recordings of one
 * input (see `recordedInputs`); undefined for any other system. The file resolves against the config's folder.
 */
export function inputsFromReplay(system: unknown, baseDir: string): { inputs: InputValue[]; samples: number } | undefined {
  const replay = system && typeof system === 'object' ? (system as { replay?: unknown }).replay : undefined;
  const file = replay && typeof replay === 'object' ? (replay as { file?: unknown }).file : undefined;
  if (typeof file !== 'string' || file === '') return undefined;
  const abs = resolve(baseDir, file);
  return recordedInputs(loadReplayFile(abs), abs);
}

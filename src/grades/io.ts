/**
 * Grades as files, for teams that grade elsewhere (`assay grades import` / `export`): JSONL, one object a
 * line, or CSV with a header row. Fields, as in the run's JSON (i and j 0-based):
 *
 *   {"input": 3, "sample": 0, "rule": "polite", "grade": "fail", "grader": "reviewer-1"}
 *
 * and optionally gradedAt (ISO 8601), probability (the output's chance of being drawn, when it was drawn at
 * random) and design (how it was drawn). Every problem names the file, the line and the field.
 */
import { lazyPackage } from '../lazy.js';
import { describeFound } from '../core/issues.js';
import { probabilityProblem } from '../core/limits.js';
import { UsageError } from '../errors.js';
import type { GradeRecord, NewGrade } from '../store/types.js';

// csv-parse loads with the first CSV file (start-up, docs/runner.md).
const csvParse = lazyPackage<typeof import('csv-parse/sync')>('csv-parse/sync');

export type GradeFileFormat = 'jsonl' | 'csv';
/** The formats of a grades file. */
export const GRADE_FILE_FORMATS: readonly GradeFileFormat[] = ['jsonl', 'csv'];

/** The fields of a grade line, in the order export writes them. */
export const GRADE_FIELDS = ['input', 'sample', 'rule', 'grade', 'grader', 'gradedAt', 'probability', 'design'] as const;
type Field = (typeof GRADE_FIELDS)[number];

/** A grade read from a file, with the line it came from. */
export interface GradeLine {
  line: number;
  grade: NewGrade;
}

/** The format a file's name says (.jsonl/.ndjson/.json → jsonl, .csv → csv), or undefined. */
export function formatOfFile(file: string): GradeFileFormat | undefined {
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  return ext === 'jsonl' || ext === 'ndjson' || ext === 'json' ? 'jsonl' : ext === 'csv' ? 'csv' : undefined;
}

function bad(file: string, line: number, field: string | undefined, message: string): UsageError {
  return new UsageError(`${file}: line ${line}${field ? `: field "${field}"` : ''}: ${message}`, { file, line, ...(field ? { path: field } : {}) });
}

const INDEX = /^\d{1,9}$/;

/** One line's object → a NewGrade (types only; the store checks it against the run). */
function toGrade(o: Record<string, unknown>, file: string, line: number, fromCsv: boolean, defaultGrader: (() => string) | undefined): NewGrade {
  // "id" (written by export with ids) names a stored grade: an import makes new ones, so it is read past.
  const unknown = Object.keys(o).filter((k) => k !== 'id' && !(GRADE_FIELDS as readonly string[]).includes(k));
  if (unknown.length) throw bad(file, line, unknown[0], `unknown field; expected ${GRADE_FIELDS.join(', ')}`);
  // CSV cells are text; an empty cell is an absent field.
  const get = (f: Field): unknown => (fromCsv && o[f] === '' ? undefined : o[f]);
  const index = (f: 'input' | 'sample'): number => {
    const v = get(f);
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
    if (fromCsv && typeof v === 'string' && INDEX.test(v.trim())) return Number(v);
    throw bad(file, line, f, `expected a whole number ≥ 0 (0-based, as in the run's JSON), found ${describeFound(v)}`);
  };
  const text = (f: 'rule' | 'grader' | 'gradedAt' | 'design', required: boolean): string | undefined => {
    const v = get(f);
    if (v === undefined && !required) return undefined;
    if (typeof v === 'string' && v.trim() !== '') return v;
    throw bad(file, line, f, `expected text, found ${describeFound(v)}`);
  };
  // Checked in the file's field order, so the first problem named is the first in the line.
  const i = index('input');
  const j = index('sample');
  const rule = text('rule', true)!;
  const rawGrade = get('grade');
  const grade = typeof rawGrade === 'string' ? rawGrade.trim().toLowerCase() : rawGrade;
  if (grade !== 'pass' && grade !== 'fail') throw bad(file, line, 'grade', `expected "pass" or "fail", found ${describeFound(rawGrade)}`);
  const grader = text('grader', defaultGrader === undefined) ?? defaultGrader!();
  const gradedAt = text('gradedAt', false);
  let probability: number | undefined;
  const p = get('probability');
  if (p !== undefined) {
    probability = typeof p === 'number' ? p : fromCsv && typeof p === 'string' && p.trim() !== '' ? Number(p) : NaN;
    const problem = probabilityProblem(probability);
    if (problem) throw bad(file, line, 'probability', `${problem}, found ${describeFound(p)}`);
  }
  const design = text('design', false);
  return {
    i,
    j,
    rule,
    grade,
    grader,
    ...(gradedAt !== undefined ? { gradedAt } : {}),
    ...(probability !== undefined ? { probability } : {}),
    ...(design !== undefined ? { design } : {}),
  };
}

/**
 * Read a grades file. `defaultGrader` names the grader of lines without one (asked only when a line needs
 * it); without it a line must name its grader. Throws a UsageError naming the file, line and field of the first problem.
 */
export function parseGrades(text: string, file: string, format: GradeFileFormat, defaultGrader?: () => string): GradeLine[] {
  text = text.replace(/^\uFEFF/, '');
  const out: GradeLine[] = [];
  if (format === 'jsonl') {
    text.split(/\r?\n/).forEach((raw, idx) => {
      if (raw.trim() === '') return;
      const line = idx + 1;
      let v: unknown;
      try {
        v = JSON.parse(raw);
      } catch (err) {
        throw bad(file, line, undefined, `expected one JSON object per line, found ${describeFound(raw)} (${(err as Error).message})`);
      }
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(file, line, undefined, `expected a JSON object, found ${describeFound(v)}`);
      out.push({ line, grade: toGrade(v as Record<string, unknown>, file, line, false, defaultGrader) });
    });
  } else {
    let rows: { record: Record<string, string>; info: { lines: number } }[];
    try {
      rows = csvParse().parse(text, { columns: true, skip_empty_lines: true, bom: true, trim: true, info: true }) as typeof rows;
    } catch (err) {
      const e = err as Error & { lines?: number };
      throw new UsageError(`${file}: line ${e.lines ?? '?'}: expected a CSV row matching the header, found a malformed row (${e.message})`, {
        file,
        ...(e.lines !== undefined ? { line: e.lines } : {}),
      });
    }
    for (const { record, info } of rows) {
      const cells = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, typeof v === 'string' ? csvText(v) : v]));
      out.push({ line: info.lines, grade: toGrade(cells, file, info.lines, true, defaultGrader) });
    }
  }
  if (!out.length) throw new UsageError(`${file}: expected at least one grade, found none`, { file });
  return out;
}

/** One exported line's fields (absent ones left out), its id first when asked for. */
function exported(g: GradeRecord, ids: boolean): Partial<Record<Field | 'id', string | number | undefined>> {
  return {
    ...(ids ? { id: g.id } : {}),
    input: g.i,
    sample: g.j,
    rule: g.rule,
    grade: g.grade,
    grader: g.grader,
    gradedAt: g.gradedAt,
    probability: g.probability,
    design: g.design,
  };
}

/**
 * A text cell a spreadsheet would run as a formula (OWASP's CSV-injection rule: one starting with =, +, -, @,
 * a tab or a carriage return) is written with a leading ' (and quoted), so it shows as text. A cell already
 * starting with quote marks before such a character gets one more, so reading strips exactly one: the
 * export reads back to the same grades.
 */
const FORMULA = /^'*[=+\-@\t\r]/;
const GUARDED = /^'+[=+\-@\t\r]/;

function csvCell(v: string | number | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'number') return String(v);
  const s = FORMULA.test(v) ? `'${v}` : v;
  return /[",\r\n']|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A CSV text cell as written by csvCell: its guarding quote mark dropped. */
const csvText = (v: string): string => (GUARDED.test(v) ? v.slice(1) : v);

/**
 * The grades as a file `parseGrades` reads back to the same grades; `ids` adds each grade's id (what
 * `assay grade --remove` takes), which an import reads past.
 */
export function formatGrades(grades: readonly GradeRecord[], format: GradeFileFormat, opts: { ids?: boolean } = {}): string {
  const ids = opts.ids ?? false;
  if (format === 'jsonl') return grades.map((g) => JSON.stringify(exported(g, ids))).join('\n') + (grades.length ? '\n' : '');
  const fields = ids ? (['id', ...GRADE_FIELDS] as const) : GRADE_FIELDS;
  const lines = [fields.join(',')];
  for (const g of grades) {
    const e = exported(g, ids);
    lines.push(fields.map((f) => csvCell(e[f])).join(','));
  }
  return lines.join('\n') + '\n';
}

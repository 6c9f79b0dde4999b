import { closeSync, openSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';

/** The report flags of `run`, `show` and `compare`, in the order they are checked and written. */
export const REPORT_FLAGS = ['json', 'junit', 'markdown', 'html'] as const;
export type ReportFlag = (typeof REPORT_FLAGS)[number];

/** `-` as a report path means standard output, for every report flag. */
export const STDOUT = '-';

/** The real path a file would have: symlinks in its folder (and the file itself, if it exists) resolved. */
function realTarget(file: string): string {
  const abs = resolve(file);
  try {
    return realpathSync(abs);
  } catch {
    try {
      return resolve(realpathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

/**
 * Check report paths before any work is done, so a run is never lost to a report that cannot be written:
 * the folder must exist and the file be creatable; no report may overwrite the store (or its WAL files);
 * no two reports may share a path (or both go to stdout). Throws a UsageError naming the flag.
 */
export function checkReportTargets(targets: Partial<Record<ReportFlag, string | undefined>>, opts: { storeFile?: string } = {}): void {
  const store = opts.storeFile !== undefined ? realTarget(opts.storeFile) : undefined;
  const taken = new Map<string, string>();
  for (const flag of REPORT_FLAGS) {
    const file = targets[flag];
    if (file === undefined) continue;
    const name = `--${flag}`;
    if (file === '') throw new UsageError(`${name}: expected a file path or "-" for stdout, found an empty string`, { path: name });
    const key = file === STDOUT ? STDOUT : realTarget(file);
    const before = taken.get(key);
    if (before) throw new UsageError(`${name}: expected a path of its own, found ${JSON.stringify(file)}, which ${before} writes too`, { path: name });
    taken.set(key, name);
    if (file === STDOUT) continue;
    if (store !== undefined && [store, `${store}-wal`, `${store}-shm`, `${store}-journal`].includes(key)) {
      throw new UsageError(
        `${name}: expected a report file, found ${JSON.stringify(file)}, which is the assay store: writing it would destroy every stored run`,
        { path: name, file },
      );
    }
    checkWritable(name, file);
  }
}

function checkWritable(name: string, file: string): void {
  const dir = dirname(resolve(file));
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(`${name}: expected a file in an existing folder, found ${JSON.stringify(file)}, whose folder ${dir} does not exist`, {
      path: name,
      file,
    });
  }
  if (!isDir) throw new UsageError(`${name}: expected a file in a folder, found ${JSON.stringify(file)}, but ${dir} is not a folder`, { path: name, file });
  let existed = true;
  try {
    if (statSync(file).isDirectory())
      throw new UsageError(`${name}: expected a file path, found ${JSON.stringify(file)}, which is a folder`, { path: name, file });
  } catch (err) {
    if (UsageError.isInstance(err)) throw err;
    existed = false;
  }
  // Opening for append creates the file without touching an existing one's content: a real test of writability
  // (permission bits lie to root, and /proc or a read-only mount refuse only on open).
  try {
    closeSync(openSync(file, 'a'));
  } catch (err) {
    throw new UsageError(
      `${name}: expected a writable file, found ${JSON.stringify(file)}, which cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      { path: name, file },
    );
  }
  if (!existed) unlinkSync(file);
}

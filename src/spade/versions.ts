/**
 * Loading prompt version histories: a JSON/YAML list of versions, or the git history of a prompt file.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import { UsageError } from '../errors.js';
import type { PromptVersion } from './deltas.js';
import { readData } from './io.js';

const run = promisify(execFile);

/**
 * Accepted shapes: `[string]`, `[{id?, text|prompt|template}]`, `{versions: [...]}`, or a SPADE benchmark
 * pipeline file (`{prompt_versions: [string]}`).
 */
export function parseVersions(data: unknown, file: string): PromptVersion[] {
  let list: unknown = data;
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const o = data as Record<string, unknown>;
    list = o.versions ?? o.prompt_versions;
    if (list === undefined) {
      throw new UsageError(
        `${file}: expected a list of prompt versions or an object with "versions"; found an object with keys ${Object.keys(o).join(', ') || '(none)'}`,
        { file },
      );
    }
  }
  if (!Array.isArray(list)) throw new UsageError(`${file}: "versions" must be a list; found ${typeof list}`, { file });
  return list.map((v, k): PromptVersion => {
    if (typeof v === 'string') return { id: `v${k}`, text: v };
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const text = o.text ?? o.prompt ?? o.template;
      if (typeof text === 'string') return { id: typeof o.id === 'string' || typeof o.id === 'number' ? String(o.id) : `v${k}`, text };
    }
    throw new UsageError(`${file}: versions[${k}] must be a string or an object with a string "text"; found ${JSON.stringify(v)?.slice(0, 80)}`, {
      file,
      path: `versions[${k}]`,
    });
  });
}

export async function readVersionsFile(file: string): Promise<PromptVersion[]> {
  return parseVersions(await readData(file), file);
}

/**
 * Every committed version of `file`, oldest first, following renames (`git log --follow`), read with
 * `git show <commit>:<path at that commit>`. Commits that delete the file are skipped.
 */
export async function gitVersions(file: string): Promise<PromptVersion[]> {
  const abs = resolve(file);
  const cwd = dirname(abs);
  const git = async (args: string[]) => (await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout;
  let root: string;
  try {
    root = (await git(['rev-parse', '--show-toplevel'])).trim();
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    // execFile reports a missing cwd and a missing git binary alike as ENOENT.
    if (e.code === 'ENOENT') {
      const why = existsSync(cwd) ? 'the git command was not found' : `no such directory ${cwd}`;
      throw new UsageError(`${file}: --git cannot read the history (${why})`, { file });
    }
    throw new UsageError(
      `${file}: --git needs a file inside a git repository (${
        String(e.stderr ?? e.message)
          .trim()
          .split('\n')[0]
      })`,
      { file },
    );
  }
  // -z: paths come out verbatim (no C-style quoting of non-ASCII, tabs or quotes), NUL-separated.
  const log = await git(['log', '--follow', '-z', '--name-status', '--format=@@%H', '--', basename(abs)]);
  const entries: { commit: string; path: string; deleted: boolean }[] = [];
  const tokens = log.split('\0');
  let commit = '';
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k].replace(/^\n+/, '');
    if (t.startsWith('@@')) commit = t.slice(2).trim();
    else if (t && commit) {
      // A rename or copy (R100, C75) names the old and the new path; other statuses one path.
      const paths = /^[RC]/.test(t) ? 2 : 1;
      entries.push({ commit, path: tokens[k + paths], deleted: t.startsWith('D') });
      k += paths;
      commit = '';
    }
  }
  if (!entries.length) throw new UsageError(`${file}: no committed versions in git history`, { file });
  const versions: PromptVersion[] = [];
  for (const e of entries.reverse()) {
    if (e.deleted) continue;
    const text = await git(['-C', root, 'show', `${e.commit}:${e.path}`]);
    versions.push({ id: e.commit.slice(0, 12), text });
  }
  return versions;
}

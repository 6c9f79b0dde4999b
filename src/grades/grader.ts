import { execFileSync } from 'node:child_process';
import { UsageError } from '../errors.js';

/**
 * Who is grading: --grader when given, else git's user.name, else $USER (or $USERNAME); a UsageError when
 * none is known, saying how to give one.
 */
export function graderName(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined) {
    if (flag.trim() === '') throw new UsageError('--grader: expected a name, found nothing', { path: '--grader' });
    return flag.trim();
  }
  let git = '';
  try {
    git = execFileSync('git', ['config', 'user.name'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'], env }).trim();
  } catch {
    // no git, or no user.name: fall through
  }
  const name = git || env.USER?.trim() || env.USERNAME?.trim();
  if (!name)
    throw new UsageError('--grader: no name to record the grades under (git config user.name and $USER are unset); give one with --grader NAME', {
      path: '--grader',
    });
  return name;
}

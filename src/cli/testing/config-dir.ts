import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** A temp folder for one test file's configs and stores, removed after its tests (tests only). */
export function useConfigDir(prefix: string): { dir: () => string; config: (name: string, body: string) => string } {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir: () => dir,
    config: (name, body) => {
      const file = join(dir, name);
      writeFileSync(file, body);
      return file;
    },
  };
}

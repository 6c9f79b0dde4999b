/**
 * better-sqlite3 is a native module: npm builds it (or fetches a prebuilt binary) in its install script. npm 11
 * asks a project to approve dependencies' install scripts (`allowScripts`); where they are denied or skipped
 * (`--ignore-scripts`, strict-allow-scripts) the module is there without its binary, and the store cannot open.
 */
const MISSING_BINARY = /Could not locate the bindings file|better_sqlite3\.node|NODE_MODULE_VERSION|ERR_DLOPEN_FAILED/;
import { thrownMessage } from '../errors.js';

/** One line saying how to fix a store that fails because better-sqlite3's binary is missing or stale; else undefined. */
export function nativeModuleProblem(err: unknown): string | undefined {
  const message = thrownMessage(err);
  const code = (err as { code?: unknown }).code;
  if (!MISSING_BINARY.test(message) && code !== 'ERR_DLOPEN_FAILED') return undefined;
  return (
    "better-sqlite3's native module is missing or was built for another Node.js (its install script did not run); " +
    'build it with: npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3'
  );
}

import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { nativeModuleProblem } from './sqlite-native.js';

describe('better-sqlite3 without its native binary', () => {
  it('says how to build it when the binary cannot be loaded, and stays out of other errors', () => {
    let err: unknown;
    try {
      new Database(':memory:', { nativeBinding: '/nonexistent/build/Release/better_sqlite3.node' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect(nativeModuleProblem(err)).toMatch(/npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3$/);
    // What the `bindings` loader says when the install script never ran.
    expect(
      nativeModuleProblem(new Error('Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node')),
    ).toBeDefined();
    expect(nativeModuleProblem(new Error('SQLITE_CANTOPEN: unable to open database file'))).toBeUndefined();
  });
});

import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { keptAfterClose, retainStatementsOnClose } from './sqlite-retain.js';

describe('statements kept past close (better-sqlite3 12 on Node ≥ 24)', () => {
  it('keeps every statement still alive at close, and the database, where the Node version needs it', () => {
    const db = new Database(':memory:');
    const afterClose = retainStatementsOnClose(db, true);
    const statements = [db.prepare('SELECT 1 AS one'), db.prepare('SELECT 2 AS two')];
    expect(statements[0]!.get()).toEqual({ one: 1 }); // prepare still works as before
    const before = keptAfterClose();
    db.close();
    afterClose();
    expect(keptAfterClose() - before).toBe(3);
  });

  it('changes nothing where the Node version does not need it', () => {
    const db = new Database(':memory:');
    const own = db.prepare;
    const afterClose = retainStatementsOnClose(db, false);
    expect(db.prepare).toBe(own);
    const before = keptAfterClose();
    db.close();
    afterClose();
    expect(keptAfterClose()).toBe(before);
  });
});

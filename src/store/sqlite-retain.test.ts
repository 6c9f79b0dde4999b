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

  it('keeps the iterators of its statements too (each has the same destructor), iterating as before', () => {
    const db = new Database(':memory:');
    const afterClose = retainStatementsOnClose(db, true);
    const statement = db.prepare('SELECT 1 AS one UNION ALL SELECT 2');
    const iterator = statement.iterate();
    expect([...iterator]).toEqual([{ one: 1 }, { one: 2 }]);
    expect([...statement.pluck().iterate()]).toEqual([1, 2]); // pluck() returns the same statement, still wrapped
    const before = keptAfterClose();
    db.close();
    afterClose();
    // The statement, two iterators (unless the second was collected already) and the database.
    expect(keptAfterClose() - before).toBeGreaterThanOrEqual(3);
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

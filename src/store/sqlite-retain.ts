import type Database from 'better-sqlite3';

/**
 * better-sqlite3 12 on Node ≥ 24 aborts the whole process ("Assertion failed: (env) != nullptr", in
 * `Statement::~Statement`, or `StatementIterator::~StatementIterator` for an iterator) when a statement is garbage-collected after its database was closed, as happens in
 * Vitest's workers (`assay/vitest`). Statements collected while the database is open are fine, and the fix upstream
 * (better-sqlite3 13) needs Node ≥ 22, which assay cannot require yet. So on those Node versions a store tracks its
 * statements and their iterators weakly and, when it closes, keeps the ones still alive (and the database object, which holds its
 * transaction statements) for the life of the process: a few small objects per closed store, their SQLite handles
 * already finalized by close.
 */
const AFFECTED = Number(process.versions.node.split('.')[0]) >= 23;
const kept: object[] = [];

/** Track `db`'s statements; the function returned is called right after `db.close()`. */
export function retainStatementsOnClose(db: Database.Database, affected = AFFECTED): () => void {
  if (!affected) return () => {};
  const live = new Set<WeakRef<object>>();
  const collected = new FinalizationRegistry<WeakRef<object>>((ref) => live.delete(ref));
  const prepare = db.prepare.bind(db);
  const track = (native: object): void => {
    const ref = new WeakRef(native);
    live.add(ref);
    collected.register(native, ref);
  };
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    track(statement);
    // An iterator is a native object of its own with the same destructor hazard (seen: `assay run` under Node 24
    // aborting in StatementIterator's destructor after the store closed), so it is kept the same way.
    const iterate = statement.iterate;
    statement.iterate = ((...params: unknown[]) => {
      const iterator = Reflect.apply(iterate, statement, params) as object;
      track(iterator);
      return iterator;
    }) as typeof statement.iterate;
    return statement;
  }) as typeof db.prepare;
  return () => {
    for (const ref of live) {
      const statement = ref.deref();
      if (statement) kept.push(statement);
    }
    live.clear();
    kept.push(db);
  };
}

/** How many objects closed stores keep (for tests). */
export function keptAfterClose(): number {
  return kept.length;
}

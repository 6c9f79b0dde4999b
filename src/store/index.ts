export * from './types.js';
export { MemoryStore } from './memory.js';
export { SqliteStore, openSqliteStore, defaultStorePath, type SqliteStoreOptions } from './sqlite.js';
export { DuplicateSampleError, UnknownRunError, newRunId } from './validate.js';

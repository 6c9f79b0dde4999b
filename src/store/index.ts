export * from './types.js';
export { MemoryStore } from './memory.js';
export { SqliteStore, openSqliteStore, defaultStorePath, type SqliteStoreOptions } from './sqlite.js';
export { PostgresStore, openPostgresStore, type PostgresStoreOptions } from './postgres.js';
export { openStore, storeLocation, storeFile, storeFailure, shownLocation, isPostgresUrl, redactPassword, type OpenStoreOptions } from './open.js';
export { DuplicateSampleError, GradeError, StoreError, UnknownRunError } from './errors.js';
export { newRunId } from './validate.js';

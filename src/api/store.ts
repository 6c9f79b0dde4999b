/**
 * `assay/store`: the store adapters behind `openStore` (SQLite, PostgreSQL, memory), where a command's runs
 * live, the store's errors, and the records it keeps. Listed in docs/api.md.
 */
export { MemoryStore } from '../store/memory.js';
export { openSqliteStore, defaultStorePath, type SqliteStoreOptions } from '../store/sqlite.js';
export { openPostgresStore, type PostgresStoreOptions } from '../store/postgres.js';
export { storeLocation } from '../store/open.js';
export { DuplicateSampleError, GradeError } from '../store/errors.js';
export type {
  RunStore,
  SampleStore,
  GradeStore,
  GuardLog,
  RunFilter,
  GuardAttemptRecord,
  GuardCallRecord,
  ResponseCache,
  CacheEntry,
  NewGrade,
  GradeRecord,
  GradeFilter,
  AuditStore,
  AuditClaimStatus,
  AuditClaimRecord,
  AuditRun,
  NewAudit,
  AuditRecord,
  NewClaimGrade,
  ClaimGradeRecord,
  ProductionStore,
  ProductionCheck,
  ProductionAlarm,
  AlarmKey,
} from '../store/types.js';
export type { ProductionSpan, ProductionSample, ProductionExperiment } from '../core/production.js';
export type { CheckedClaim } from '../core/validator.js';

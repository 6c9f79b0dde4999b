/**
 * A dashboard read as plain data (the request's path parameters and query in, a status and a finished body
 * out), so that it can be answered on another thread: reading and summarising a run with millions of grades
 * must not hold the server's event loop (issue 30; dashboard-pool.ts).
 */

/** The reads the dashboard hands to its reader (dashboard-views.ts answers each). */
export const VIEWS = [
  'runs',
  'runsPage',
  'run',
  'runPage',
  'trend',
  'trendPage',
  'compare',
  'comparePage',
  'gradingQueue',
  'latestGrade',
  'auditQueue',
  'auditSummary',
] as const;
export type ViewName = (typeof VIEWS)[number];

export interface ViewRequest {
  /** The route's path parameters (`id`, `name`, …). */
  params: Record<string, string>;
  /** The query string, first value of each name. */
  query: Record<string, string>;
}

/** A finished answer: HTML pages get the dashboard's Content-Security-Policy where they are sent. */
export interface ViewResult {
  status: 200 | 400 | 404 | 409 | 503;
  type: 'html' | 'json';
  body: string;
  /** Seconds, for a 503 (the readers are all busy). */
  retryAfter?: number;
}

/** Answers dashboard reads: on this thread (a store in memory), or in a worker thread with its own connection to the store. */
export interface DashboardReader {
  read(view: ViewName, req: ViewRequest): Promise<ViewResult>;
  close(): Promise<void>;
}

export const jsonResult = (body: unknown, status: ViewResult['status'] = 200): ViewResult => ({ status, type: 'json', body: JSON.stringify(body) });

import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as z from 'zod';
import { firstIssue } from '../core/issues.js';
import { MIN_PROBABILITY } from '../core/limits.js';
import { Outcome, outcomeName } from '../core/outcome.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import { gradingRefusal } from '../grades/gradable.js';
import { GRADING_DESIGNS, gradingPlan, gradingQueue, MAX_SEED, queueSettings, ruleToGrade, type GradingDesign, type QueueItem } from '../grades/queue.js';
import { ruleAsks } from '../grades/rule-asks.js';
import { GradeError, UnknownRunError } from '../store/errors.js';
import type { GradeRecord, RunRecord, SampleRecord, Store } from '../store/types.js';
import { checkMediaType, clientKey } from './analyze.js';
import { defaultLimits, RateLimiter, type ServerLimits } from './limits.js';
import type { DashboardData } from './data.js';
import { jsonResult, type DashboardReader, type ViewRequest, type ViewResult } from './view-types.js';
import { reply, viewRequest } from './view-reply.js';

/**
 * The grading API behind the dashboard's grading page (docs/judges.md):
 *
 *   GET    /api/runs/:id/grading?rule=&grader=&count=&design=&seed=   the queue: outputs drawn at random, with input
 *          (or &i=&j= for one output picked by hand)                  and output; the rule's verdict only for outputs
 *                                                                      this grader has graded
 *   POST   /api/runs/:id/grades     {i, j, rule, grade, grader, probability?, design?}  → 201 the grade and the verdict
 *   DELETE /api/runs/:id/grades/:gradeId                              → 200 (undo)
 *
 * Writes need a server started with `--grading` (the store opened for writing; 403 otherwise), JSON bodies
 * (415 otherwise, so no HTML form of another site can post), and pass the server's token and Host checks.
 */

/** Outputs one queue page may hold, and the inputs' and outputs' characters it may carry (the rest are left for the next page). */
const MAX_QUEUE = 200;
export const MAX_QUEUE_BYTES = 8 * 2 ** 20;
const MAX_BODY = 16 * 1024;

const GradeBody = z
  .object({
    i: z.number().int().min(0),
    j: z.number().int().min(0),
    rule: z.string().min(1).max(500),
    grade: z.enum(['pass', 'fail']),
    grader: z.string().min(1).max(200),
    probability: z.number().min(MIN_PROBABILITY).lte(1).optional(),
    design: z.string().min(1).max(200).optional(),
  })
  .strict();

/** What the rule said of an output: shown only once a person has graded it. */
export interface RuleVerdict {
  verdict: 'pass' | 'fail' | 'error' | 'pending';
  reasons?: string[];
  error?: string;
}

/** The rule's verdict on output (i, j): from the stored sample (one row), or the tensor when it is at hand anyway. */
function verdictOf(t: ReliabilityTensor | undefined, k: number, i: number, j: number, s: SampleRecord | undefined): RuleVerdict {
  const code = (t ? t.get(i, j, k) : s?.outcomes[k]) ?? Outcome.PENDING;
  const verdict = code === Outcome.PENDING ? 'pending' : (outcomeName(code) as RuleVerdict['verdict']);
  const reasons = s?.reasons?.[k];
  const error = s?.errors?.[k] ?? (code === Outcome.ERROR ? s?.generationError : undefined);
  return { verdict, ...(reasons?.length ? { reasons } : {}), ...(error ? { error } : {}) };
}

const agreeOf = (v: RuleVerdict, grade: 'pass' | 'fail') => (v.verdict === 'pass' || v.verdict === 'fail' ? v.verdict === grade : null);

function whole(s: string | undefined, fallback: number | undefined, max: number): number | undefined | null {
  if (s === undefined || s === '') return fallback;
  return /^\d{1,9}$/.test(s) && Number(s) <= max ? Number(s) : null;
}

/** The run a path names, if it takes grades; else the 404 or 409 to answer. */
async function gradableRun(store: Store, data: DashboardData, ref: string): Promise<RunRecord | { status: 404 | 409; body: object }> {
  const id = await data.resolve(ref);
  const run = id === undefined ? undefined : await store.runs.get(id);
  if (!run) return { status: 404, body: { error: 'not_found', message: await data.whyUnresolved(ref) } };
  const refusal = gradingRefusal(run);
  if (refusal) return { status: 409, body: { error: 'not_gradable', message: refusal } };
  return run;
}

/**
 * GET /api/runs/:id/grading: the queue page. It reads the run's tensor and the rule's grades (millions, maybe),
 * so the dashboard's reader answers it, off the event loop (dashboard-views.ts).
 */
export async function gradingQueueView(store: Store, data: DashboardData, writable: boolean, req: ViewRequest): Promise<ViewResult> {
  const bad = (field: string, message: string) => jsonResult({ error: 'invalid_request', message, field }, 400);
  const run = await gradableRun(store, data, req.params.id);
  if (!('id' in run)) return jsonResult(run.body, run.status);
  const q = (name: string) => req.query[name];
  const k = ruleToGrade(run, q('rule'));
  if (k === undefined)
    return bad('rule', `run ${run.id} has no rule ${JSON.stringify(q('rule'))} (its rules: ${run.validators.map((v) => v.name).join(', ')})`);
  const rule = run.validators[k];
  const count = whole(q('count'), undefined, MAX_QUEUE);
  if (count === null || count === 0) return bad('count', `query parameter "count" must be a whole number from 1 to ${MAX_QUEUE}`);
  const design = q('design') || undefined;
  if (design !== undefined && !(GRADING_DESIGNS as string[]).includes(design))
    return bad('design', 'query parameter "design" must be "uniform" or "stratified"');
  const seed = whole(q('seed'), undefined, MAX_SEED);
  if (seed === null) return bad('seed', 'query parameter "seed" must be a whole number');
  // The defaults of what the page leaves out are the CLI's (grades/queue.ts).
  const settings = queueSettings(run.id, rule.name, {
    ...(count !== undefined ? { count } : {}),
    ...(design !== undefined ? { design: design as GradingDesign } : {}),
    ...(seed !== undefined ? { seed } : {}),
  });
  const [pi, pj] = [whole(q('i'), undefined, run.N - 1), whole(q('j'), undefined, run.M - 1)];
  if (pi === null || pj === null || (pi === undefined) !== (pj === undefined))
    return bad(
      pi === null || pi === undefined ? 'i' : 'j',
      `query parameters "i" and "j" name one output together: i in 0..${run.N - 1}, j in 0..${run.M - 1}`,
    );
  // The run's tensor and grades combined, as its summary was made (kept until a grade of the run changes):
  // a queue page does not read the rule's grades again, however many there are (issue 30).
  const loaded = await data.load(run.id, run);
  if (!loaded) return jsonResult({ error: 'not_found', message: await data.whyUnresolved(run.id) }, 404);
  const { tensor } = loaded;
  const combined = loaded.grading?.[k] ?? [];
  // A new batch from the outputs nobody graded for this rule yet (docs/judges.md, "The queue").
  const queue =
    pi !== undefined && pj !== undefined
      ? { items: [{ i: pi, j: pj } as Omit<QueueItem, 'probability' | 'design'>], design: 'picked by hand', seed: null, population: null }
      : gradingQueue(tensor, k, { count: settings.count, design: settings.design, seed: settings.seed, graded: combined });
  const grader = q('grader')?.trim();
  const mine = new Map<string, GradeRecord>();
  // A drawn output is one nobody graded for the rule: only one picked by hand can be this grader's already.
  if (grader && pi !== undefined && pj !== undefined)
    for (const g of await store.grades.list(run.id, { rule: rule.name, grader, i: pi, j: pj })) mine.set(`${g.i},${g.j}`, g);
  const items = [];
  let bytes = 0;
  for (const it of queue.items) {
    const s = await store.samples.get(run.id, it.i, it.j);
    // A page carries at most MAX_QUEUE_BYTES of inputs and outputs (2 MB outputs × 100 made 200 MB): the rest stay ungraded for the next.
    const size = (s?.output?.length ?? 0) + JSON.stringify(run.inputs[it.i] ?? '').length;
    if (items.length && bytes + size > MAX_QUEUE_BYTES) break;
    bytes += size;
    const g = mine.get(`${it.i},${it.j}`);
    const v = g ? verdictOf(tensor, k, it.i, it.j, s) : undefined;
    // The stratum is the rule's verdict: like the verdict, not sent before grading.
    const { stratum: _verdict, ...drawn } = it as QueueItem;
    items.push({
      ...drawn,
      input: run.inputs[it.i],
      ...(s?.output !== undefined ? { output: s.output } : { generationError: s?.generationError ?? 'not run' }),
      // The rule's verdict stays hidden until this grader has graded the output (no anchoring).
      ...(g && v ? { mine: { id: g.id, grade: g.grade }, rule: { ...v, agree: agreeOf(v, g.grade) } } : {}),
    });
  }
  const { graded: _graded, ...plan } = gradingPlan(run, tensor, k, [], { width: settings.width, design: settings.design, combined });
  return jsonResult({
    run: { id: run.id, name: run.name, N: run.N, M: run.M },
    rule: { name: rule.name, kind: rule.kind, asks: ruleAsks(rule) },
    rules: run.validators.map((v) => ({ name: v.name, kind: v.kind })),
    queue: { design: queue.design, seed: queue.seed, population: queue.population, count: items.length, left: queue.items.length - items.length },
    // grades null: no output decided, or more grades than there are outputs
    gradesNeeded: plan,
    writable,
    items,
  });
}

/** The latest grade of one output by one grader for one rule (null for none): what counts after an undo. */
export async function latestGradeView(store: Store, req: ViewRequest): Promise<ViewResult> {
  const { rule, grader, i, j } = req.query;
  const left = await store.grades.list(req.params.id, { rule, grader, i: Number(i), j: Number(j) });
  return jsonResult(left[left.length - 1] ?? null);
}

export function registerGrading(
  app: Hono,
  store: Store,
  data: DashboardData,
  reader: DashboardReader,
  writable: boolean,
  limits: ServerLimits = defaultLimits,
): void {
  // Each client's grading requests draw on a budget of their own, as /analyze's do (429 with Retry-After past it).
  const limiter = new RateLimiter(limits.rateBurst, limits.ratePerSecond);
  const limited: MiddlewareHandler = async (c, next) => {
    const wait = limiter.take(clientKey(c));
    if (wait <= 0) return next();
    c.header('Retry-After', String(Math.max(1, Math.ceil(wait))));
    return c.json({ error: 'rate_limited', message: `too many grading requests from this client; retry after ${Math.max(1, Math.ceil(wait))} s` }, 429);
  };
  app.use('/api/runs/:id/grading', limited);
  app.use('/api/runs/:id/grades/*', limited); // also /grades itself
  const missing = async (c: Context, ref: string) => c.json({ error: 'not_found', message: await data.whyUnresolved(ref) }, 404);
  const readOnly = (c: Context) =>
    c.json(
      { error: 'grading_off', message: 'this server does not take grades: start it with assay serve --grading (it then opens the store for writing)' },
      403,
    );

  /** The run a path names and whether it takes grades. */
  async function runOf(c: Context): Promise<RunRecord | Response> {
    const run = await gradableRun(store, data, c.req.param('id')!);
    return 'id' in run ? run : c.json(run.body, run.status);
  }

  app.get('/api/runs/:id/grading', async (c) => reply(c, await reader.read('gradingQueue', viewRequest(c))));

  app.post(
    '/api/runs/:id/grades',
    bodyLimit({ maxSize: MAX_BODY, onError: (c) => c.json({ error: 'payload_too_large', message: `the body exceeds the ${MAX_BODY}-byte limit` }, 413) }),
    async (c) => {
      const media = checkMediaType(c.req.header('content-type'));
      if (media) return c.json({ error: 'unsupported_media_type', message: media }, 415);
      if (!writable) return readOnly(c);
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return c.json({ error: 'invalid_json', message: 'the body is not valid JSON' }, 400);
      }
      const parsed = GradeBody.safeParse(body, { reportInput: true });
      if (!parsed.success) return c.json({ error: 'invalid_request', ...firstIssue(parsed.error, GradeBody) }, 400);
      const run = await runOf(c);
      if (run instanceof Response) return run;
      let g: GradeRecord;
      try {
        g = await store.grades.record(run.id, parsed.data);
      } catch (err) {
        if (GradeError.isInstance(err)) return c.json({ error: 'invalid_grade', message: err.message, ...(err.field ? { field: err.field } : {}) }, 400);
        if (UnknownRunError.isInstance(err)) return missing(c, run.id);
        throw err;
      }
      const k = run.validators.findIndex((v) => v.name === g.rule);
      // One sample read, never the run's tensor: a grade's work does not grow with the run.
      const v = verdictOf(undefined, k, g.i, g.j, await store.samples.get(run.id, g.i, g.j));
      return c.json({ grade: g, rule: { ...v, agree: agreeOf(v, g.grade) } }, 201);
    },
  );

  app.delete('/api/runs/:id/grades/:gradeId', async (c) => {
    if (!writable) return readOnly(c);
    const run = await runOf(c);
    if (run instanceof Response) return run;
    const id = whole(c.req.param('gradeId'), undefined, Number.MAX_SAFE_INTEGER);
    // The grade itself, found by its id (not among a run's million grades on the server's thread).
    const [before] = id ? await store.grades.list(run.id, { id }) : [];
    if (!id || !before || !(await store.grades.delete(run.id, id)))
      return c.json({ error: 'not_found', message: `run ${run.id} has no grade ${c.req.param('gradeId')}` }, 404);
    // The grader's earlier grade of the output, if any, counts again: found by the reader (no index serves
    // this filter, so it reads every grade of the run).
    const found = await reader.read('latestGrade', {
      params: { id: run.id },
      query: { rule: before.rule, grader: before.grader, i: String(before.i), j: String(before.j) },
    });
    if (found.status !== 200) return reply(c, found);
    const last = JSON.parse(found.body) as GradeRecord | null;
    if (!last) return c.json({ deleted: before, mine: null });
    const k = run.validators.findIndex((v) => v.name === before.rule);
    const v = verdictOf(undefined, k, last.i, last.j, await store.samples.get(run.id, last.i, last.j));
    return c.json({ deleted: before, mine: { id: last.id, grade: last.grade }, rule: { ...v, agree: agreeOf(v, last.grade) } });
  });
}

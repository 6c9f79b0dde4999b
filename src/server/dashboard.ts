import type { ServerLimits } from './limits.js';
import type { Context, Hono } from 'hono';
import { esc, page } from '../report/html-layout.js';
import type { Store } from '../store/types.js';
import { DashboardData } from './data.js';
import { badQuery, localReader, whole } from './dashboard-views.js';
import { GROUNDING_SCRIPT, groundingBody } from './grounding-page.js';
import { gradingRefusal } from '../grades/gradable.js';
import { registerGrading } from './grading.js';
import { registerAuditGrading } from './audit-grading.js';
import { GRADING_SCRIPT, gradingBody } from './grading-page.js';
import { productionExperimentBody, productionListBody, productionRuleBody } from './production-page.js';
import { RuleWatch, type WatchOptions } from '../core/monitor.js';
import { CSP, reply, viewRequest } from './view-reply.js';
import type { DashboardReader, ViewName } from './view-types.js';

function html(c: Context, title: string, body: string, script?: string, status: 200 | 400 | 404 = 200) {
  c.header('Content-Security-Policy', CSP);
  return c.html(page({ title: `${title} · assay`, body, script, nav: true }), status);
}

function notFound(c: Context, what: string) {
  return c.json({ error: 'not_found', message: what }, 404);
}

/** A run index from the URL: a non-negative integer, else undefined (→ 404). */
function index(s: string): number | undefined {
  return /^\d{1,9}$/.test(s) ? Number(s) : undefined;
}

/**
 * The dashboard: HTML pages and the JSON they are built from under /api. It only reads the store, but for
 * people's grades when `grading` is on (assay serve --grading: the store is then opened for writing).
 */
export function registerDashboard(
  app: Hono,
  store: Store | undefined,
  hasEngine = false,
  grading = false,
  limits?: ServerLimits,
  reader: DashboardReader | undefined = store && localReader(store, grading),
): void {
  // Browsers ask for it on every page; an empty answer keeps the console clean.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/grounding', (c) => html(c, 'Grounding', groundingBody(hasEngine), GROUNDING_SCRIPT));
  if (!store) {
    app.get('/', (c) => html(c, 'Runs', '<h1>Runs</h1><p class="muted">This server has no store (start it with <code>assay serve --store PATH</code>).</p>'));
    app.get('/api/*', (c) => c.json({ error: 'no_store', message: 'this server has no store' }, 503));
    return;
  }
  // Whatever reads a run's tensor, samples or grades goes to the reader (dashboard-views.ts): on a worker thread
  // when the store can be opened there, so millions of grades never hold this thread (issue 30).
  const data = new DashboardData(store);
  const bad = (c: Context, field: string, expected: string) => reply(c, badQuery(field, expected));
  const read = (view: ViewName) => async (c: Context) => reply(c, await reader!.read(view, viewRequest(c)));
  registerGrading(app, store, data, reader!, grading, limits);
  registerAuditGrading(app, store, reader!, grading, (c, title, body, script, status) => html(c, title, body, script, status), limits);

  // JSON data endpoints.
  app.get('/api/runs', read('runs'));
  app.get('/api/runs/:id', read('run'));
  app.get('/api/runs/:id/samples/:i/:j', async (c) => {
    const [i, j] = [index(c.req.param('i')), index(c.req.param('j'))];
    const s = i === undefined || j === undefined ? undefined : await data.sample(c.req.param('id'), i, j);
    return s ? c.json(s) : notFound(c, `no stored sample (${c.req.param('i')}, ${c.req.param('j')}) in run "${c.req.param('id')}"`);
  });
  app.get('/api/trend/:name', read('trend'));
  app.get('/api/compare', read('compare'));

  // Pages.
  app.get('/', read('runsPage'));
  app.get('/runs/:id', read('runPage'));
  app.get('/runs/:id/grade', async (c) => {
    const id = await data.resolve(c.req.param('id'));
    const run = id === undefined ? undefined : await store.runs.get(id);
    if (!run)
      return html(
        c,
        'Not found',
        `<h1>No run “${esc(c.req.param('id'))}”</h1><p>${esc(await data.whyUnresolved(c.req.param('id')))}</p><p><a href="/">All runs</a></p>`,
        undefined,
        404,
      );
    const refusal = gradingRefusal(run);
    if (refusal)
      return html(
        c,
        'Grade',
        `<h1>Grade outputs</h1><p class="worse">${esc(refusal)}</p><p><a href="/runs/${encodeURIComponent(run.id)}">Back to the run</a></p>`,
      );
    return html(c, `Grade ${run.name}`, gradingBody(run.id, grading), GRADING_SCRIPT);
  });
  app.get('/trend/:name', read('trendPage'));
  // Production experiments (traces taken in by assay serve --ingest or assay ingest).
  app.get('/api/production', async (c) => c.json(await store.production.experiments()));
  app.get('/api/production/samples', async (c) => {
    const name = c.req.query('experiment');
    const limit = whole(c.req.query('limit'), 50, 1, 1000);
    if (!name) return bad(c, 'experiment', 'the name of a production experiment');
    if (limit === undefined) return bad(c, 'limit', 'a whole number from 1 to 1000');
    return c.json(await store.production.list(name, { newest: true, limit }));
  });
  app.get('/production', async (c) => {
    const experiments = await store.production.experiments();
    const alarms = new Map<string, number>();
    for (const e of experiments) alarms.set(e.name, (await store.production.alarms(e.name)).length);
    return html(c, 'Production', productionListBody(experiments, alarms));
  });
  app.get('/production/experiment', async (c) => {
    const name = c.req.query('name') ?? '';
    const experiment = (await store.production.experiments()).find((e) => e.name === name);
    if (!experiment)
      return html(
        c,
        'Not found',
        `<h1>No production experiment “${esc(name)}”</h1><p><a href="/production">All production experiments</a></p>`,
        undefined,
        404,
      );
    const [samples, alarms, rules] = await Promise.all([
      store.production.list(name, { newest: true, limit: 50 }),
      store.production.alarms(name),
      store.production.rules(name),
    ]);
    return html(c, name, productionExperimentBody(experiment, samples, alarms, rules));
  });
  app.get('/production/rule', async (c) => {
    const [name, rule] = [c.req.query('experiment') ?? '', c.req.query('rule') ?? ''];
    const watched = (await store.production.rules(name)).find((r) => r.rule === rule);
    if (!watched)
      return html(
        c,
        'Not found',
        `<h1>No monitored rule “${esc(rule)}” on “${esc(name)}”</h1><p><a href="/production">All production experiments</a></p>`,
        undefined,
        404,
      );
    // The rule's stream replayed as the monitor watches it (its settings are stored with its checks).
    const settings = (watched.settings ?? {}) as WatchOptions;
    let watch: RuleWatch;
    try {
      watch = new RuleWatch(settings);
    } catch {
      watch = new RuleWatch({});
    }
    for (const check of await store.production.checks(name, rule)) watch.observe(check.outcome, check.atMs);
    const alarms = (await store.production.alarms(name)).filter((a) => a.rule === rule);
    return html(
      c,
      `${rule} · ${name}`,
      productionRuleBody({
        experiment: name,
        rule,
        alpha: watch.alpha,
        ...(watch.thresholds['below-min-success'] !== undefined ? { minSuccess: watch.thresholds['below-min-success'] } : {}),
        ...(watch.thresholds.dropped !== undefined ? { dropThreshold: watch.thresholds.dropped } : {}),
        windows: watch.windowSummaries(),
        cumulative: watch.cumulativeSummary(),
        alarms,
      }),
    );
  });
  app.get('/compare', read('comparePage'));
}

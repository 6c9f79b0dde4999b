import type { ServerLimits } from './limits.js';
import type { Context, Hono } from 'hono';
import { esc, page } from '../report/html-layout.js';
import { renderRunSections } from '../report/html-run.js';
import { CELL_DETAIL_SCRIPT } from '../report/html-script.js';
import { computeStats } from '../run/stats.js';
import type { Store } from '../store/types.js';
import { DashboardData, MAX_TREND_RUNS, RUNS_PAGE, TREND_RUNS, type RunPage } from './data.js';
import { GROUNDING_SCRIPT, groundingBody } from './grounding-page.js';
import { compareBody, defaultPair } from './compare-page.js';
import { runsListBody, trendBody } from './pages.js';
import type { PAdjust } from '../core/compare.js';
import { gradingRefusal } from '../grades/gradable.js';
import { registerGrading } from './grading.js';
import { registerAuditGrading } from './audit-grading.js';
import { GRADING_SCRIPT, gradingBody } from './grading-page.js';
import { productionExperimentBody, productionListBody, productionRuleBody } from './production-page.js';
import { RuleWatch, type WatchOptions } from '../core/monitor.js';

/** Tokens, cost and cache figures read every sample of a run: shown on run pages up to this size. */
const STATS_SAMPLES_LIMIT = 20_000;

/** Everything inline; nothing may be fetched from another origin at view time. */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

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

function level(s: string | undefined): number | undefined {
  if (s === undefined || s === '') return 0.95;
  const v = Number(s);
  return v > 0 && v < 1 ? v : undefined;
}

/** A paging parameter: absent → fallback; a whole number in [min, max] → it; anything else → undefined (400). */
function whole(s: string | undefined, fallback: number, min: number, max: number): number | undefined {
  if (s === undefined || s === '') return fallback;
  const v = /^\d{1,9}$/.test(s) ? Number(s) : NaN;
  return v >= min && v <= max ? v : undefined;
}

/** "runs 51–100 of 10,000" with links to the newer and older pages, keeping the name filter. */
function pager(p: RunPage, name: string | undefined): string {
  if (p.total <= p.runs.length && p.offset === 0) return '';
  const link = (offset: number, label: string) => `<a href="/?${name ? `name=${encodeURIComponent(name)}&amp;` : ''}offset=${offset}">${label}</a>`;
  const newer = p.offset > 0 ? link(Math.max(0, p.offset - p.limit), '← newer') : '';
  const older = p.offset + p.limit < p.total ? link(p.offset + p.limit, 'older →') : '';
  const shown = p.runs.length
    ? `runs ${p.offset + 1}–${p.offset + p.runs.length} of ${p.total.toLocaleString('en')}`
    : `no runs at offset ${p.offset} of ${p.total.toLocaleString('en')}`;
  return `<nav class="pager" aria-label="pages of runs"><p>${[newer, shown, older].filter(Boolean).join(' · ')}</p></nav>`;
}

function adjustOf(s: string | undefined): PAdjust | undefined {
  return s === undefined || s === '' || s === 'none' ? 'none' : s === 'holm' ? 'holm' : undefined;
}

/**
 * The dashboard: HTML pages and the JSON they are built from under /api. It only reads the store, but for
 * people's grades when `grading` is on (assay serve --grading: the store is then opened for writing).
 */
export function registerDashboard(app: Hono, store: Store | undefined, hasEngine = false, grading = false, limits?: ServerLimits): void {
  // Browsers ask for it on every page; an empty answer keeps the console clean.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/grounding', (c) => html(c, 'Grounding', groundingBody(hasEngine), GROUNDING_SCRIPT));
  if (!store) {
    app.get('/', (c) => html(c, 'Runs', '<h1>Runs</h1><p class="muted">This server has no store (start it with <code>assay serve --store PATH</code>).</p>'));
    app.get('/api/*', (c) => c.json({ error: 'no_store', message: 'this server has no store' }, 503));
    return;
  }
  const data = new DashboardData(store);
  registerGrading(app, store, data, grading, limits);
  registerAuditGrading(app, store, grading, (c, title, body, script, status) => html(c, title, body, script, status), limits);
  // A finished run's page never changes and a 200×10×3 run takes ~0.6 s to draw: keep the last few.
  const runPages = new Map<string, { gradesKey: string | undefined; gradesVersion: string | undefined; html: string }>();

  // JSON data endpoints.
  const paging = (c: Context) => ({ offset: whole(c.req.query('offset'), 0, 0, 1e9), limit: whole(c.req.query('limit'), RUNS_PAGE, 1, 500) });
  const bad = (c: Context, field: string, expected: string) =>
    c.json({ error: 'invalid_request', message: `query parameter "${field}" must be ${expected}`, field }, 400);
  app.get('/api/runs', async (c) => {
    const { offset, limit } = paging(c);
    if (offset === undefined) return bad(c, 'offset', 'a whole number ≥ 0');
    if (limit === undefined) return bad(c, 'limit', 'a whole number from 1 to 500');
    return c.json(await data.runs(c.req.query('name'), { offset, limit }));
  });
  app.get('/api/runs/:id', async (c) => {
    const body = await data.runJson(c.req.param('id'));
    return body ? c.json(body) : notFound(c, await data.whyUnresolved(c.req.param('id')));
  });
  app.get('/api/runs/:id/samples/:i/:j', async (c) => {
    const [i, j] = [index(c.req.param('i')), index(c.req.param('j'))];
    const s = i === undefined || j === undefined ? undefined : await data.sample(c.req.param('id'), i, j);
    return s ? c.json(s) : notFound(c, `no stored sample (${c.req.param('i')}, ${c.req.param('j')}) in run "${c.req.param('id')}"`);
  });
  app.get('/api/trend/:name', async (c) => {
    const limit = whole(c.req.query('limit'), TREND_RUNS, 1, MAX_TREND_RUNS);
    if (limit === undefined) return bad(c, 'limit', `a whole number from 1 to ${MAX_TREND_RUNS}`);
    const t = await data.trend(c.req.param('name'), limit);
    return t ? c.json(t) : notFound(c, `no runs named "${c.req.param('name')}"`);
  });
  app.get('/api/compare', async (c) => {
    const [a, b, lv, adjust] = [c.req.query('a'), c.req.query('b'), level(c.req.query('level')), adjustOf(c.req.query('adjust'))];
    if (!a || !b) return c.json({ error: 'invalid_request', message: 'query parameters "a" and "b" (run ids) are required', field: a ? 'b' : 'a' }, 400);
    if (lv === undefined) return c.json({ error: 'invalid_request', message: 'query parameter "level" must be a number in (0, 1)', field: 'level' }, 400);
    if (adjust === undefined) return c.json({ error: 'invalid_request', message: 'query parameter "adjust" must be "none" or "holm"', field: 'adjust' }, 400);
    const r = await data.compare(a, b, { level: lv, adjust });
    return 'missing' in r ? notFound(c, `no run with id "${r.missing}"`) : c.json(r);
  });

  // Pages.
  app.get('/', async (c) => {
    const name = c.req.query('name') || undefined;
    const offset = whole(c.req.query('offset'), 0, 0, 1e9);
    if (offset === undefined) return html(c, 'Runs', '<h1>Runs</h1><p>The offset must be a whole number ≥ 0. <a href="/">First page</a></p>', undefined, 400);
    const page = await data.runs(name, { offset });
    const items = page.runs;
    // "vs previous": the next older run of the same name in the (newest-first) list.
    const previous = new Map<string, string>();
    items.forEach((r, idx) => {
      const older = items.slice(idx + 1).find((o) => o.name === r.name);
      if (older) previous.set(r.id, older.id);
    });
    return html(c, 'Runs', runsListBody(items, name, previous) + pager(page, name));
  });
  app.get('/runs/:id', async (c) => {
    // `latest` and id prefixes name a run too; pages are cached by the id they resolve to.
    const id = (await data.resolve(c.req.param('id'))) ?? c.req.param('id');
    // A grade given since (here, or by the CLI) changes the page.
    const cached = runPages.get(id);
    const version = await data.gradesVersion();
    if (cached && (cached.gradesVersion === version || cached.gradesKey === (await data.gradesKey(id)))) {
      cached.gradesVersion = version;
      c.header('Content-Security-Policy', CSP);
      return c.html(cached.html);
    }
    const loaded = await data.load(id);
    if (!loaded)
      return html(c, 'Not found', `<h1>No run “${esc(id)}”</h1><p>${esc(await data.whyUnresolved(id))}</p><p><a href="/">All runs</a></p>`, undefined, 404);
    const enc = encodeURIComponent;
    const links = `<p><a href="/trend/${enc(loaded.run.name)}">Trend of ${esc(loaded.run.name)}</a> · <a href="/api/runs/${enc(id)}">JSON</a> · <a href="/runs/${enc(id)}/grade">Grade outputs</a></p>`;
    const stats = loaded.run.N * loaded.run.M <= STATS_SAMPLES_LIMIT ? computeStats(await store.samples.list(id)) : undefined;
    const body = renderRunSections(loaded.run, loaded.summary, loaded.tensor, {
      sampleBase: `/api/runs/${enc(id)}/samples`,
      links,
      ...(stats ? { stats } : {}),
      ...(loaded.errors ? { errors: loaded.errors } : {}),
    });
    const rendered = page({ title: `${loaded.run.name} · assay`, body, script: CELL_DETAIL_SCRIPT, nav: true });
    if (loaded.run.status !== 'running') {
      if (runPages.size >= 20) runPages.delete(runPages.keys().next().value!);
      runPages.set(id, { gradesKey: loaded.gradesKey, gradesVersion: loaded.gradesVersion, html: rendered });
    }
    c.header('Content-Security-Policy', CSP);
    return c.html(rendered);
  });
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
  app.get('/trend/:name', async (c) => {
    const limit = whole(c.req.query('limit'), TREND_RUNS, 1, MAX_TREND_RUNS);
    if (limit === undefined) return html(c, 'Trend', `<h1>Trend</h1><p>The limit must be a whole number from 1 to ${MAX_TREND_RUNS}.</p>`, undefined, 400);
    const t = await data.trend(c.req.param('name'), limit);
    if (!t) return html(c, 'Not found', `<h1>No runs with that name</h1><p><a href="/">All runs</a></p>`, undefined, 404);
    const more =
      t.totalRuns > t.runs.length
        ? `<p class="muted">The newest ${t.runs.length} of ${t.totalRuns.toLocaleString('en')} runs of this name. <a href="/trend/${encodeURIComponent(t.name)}?limit=${Math.min(MAX_TREND_RUNS, t.totalRuns)}">Show ${t.totalRuns > MAX_TREND_RUNS ? `the newest ${MAX_TREND_RUNS}` : 'all'}</a></p>`
        : '';
    return html(c, `Trend ${t.name}`, more + trendBody(t));
  });
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
  app.get('/compare', async (c) => {
    // The pickers offer the newest runs; any other run is compared by its id in the URL.
    const runs = (await store.runs.list({ limit: 200 })).map((r) => ({ id: r.id, name: r.name, createdAt: r.createdAt }));
    const [a, b] = [c.req.query('a'), c.req.query('b')];
    const adjust = adjustOf(c.req.query('adjust')) ?? 'none';
    if (!a || !b) return html(c, 'Compare', compareBody(undefined, runs, defaultPair(runs)));
    const r = await data.compare(a, b, { adjust });
    if ('missing' in r) return html(c, 'Compare', compareBody(undefined, runs, { a, b }, `No run with id “${r.missing}”.`), undefined, 404);
    return html(c, 'Compare', compareBody(r, runs, { a, b, adjust }));
  });
}

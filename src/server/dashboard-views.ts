import type { PAdjust } from '../core/compare.js';
import { esc, page } from '../report/html-layout.js';
import { renderRunSections } from '../report/html-run.js';
import { CELL_DETAIL_SCRIPT } from '../report/html-script.js';
import { computeStats } from '../run/stats.js';
import type { Store } from '../store/types.js';
import { auditQueueView, auditSummaryView } from './audit-grading.js';
import { compareBody, defaultPair } from './compare-page.js';
import { DashboardData, MAX_TREND_RUNS, RUNS_PAGE, TREND_RUNS, type RunPage } from './data.js';
import { gradingQueueView, latestGradeView } from './grading.js';
import { runsListBody, trendBody } from './pages.js';
import { jsonResult, type ViewName, type ViewRequest, type ViewResult } from './view-types.js';

/** Tokens, cost and cache figures read every sample of a run: shown on run pages up to this size. */
const STATS_SAMPLES_LIMIT = 20_000;

const html = (title: string, body: string, script?: string, status: ViewResult['status'] = 200): ViewResult => ({
  status,
  type: 'html',
  body: page({ title: `${title} · assay`, body, script, nav: true }),
});

const notFound = (message: string) => jsonResult({ error: 'not_found', message }, 404);

/** 400 naming the query parameter and what it must be. */
export const badQuery = (field: string, expected: string) =>
  jsonResult({ error: 'invalid_request', message: `query parameter "${field}" must be ${expected}`, field }, 400);

function level(s: string | undefined): number | undefined {
  if (s === undefined || s === '') return 0.95;
  const v = Number(s);
  return v > 0 && v < 1 ? v : undefined;
}

/** A paging parameter: absent → fallback; a whole number in [min, max] → it; anything else → undefined (400). */
export function whole(s: string | undefined, fallback: number, min: number, max: number): number | undefined {
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
 * The dashboard's reads of runs and grades, from request data to a finished body: whatever reads a run's
 * tensor, samples or grades (a run may have millions) is here, so the server can answer it on a worker thread
 * with its own connection to the store (dashboard-pool.ts), or on its own thread for a store in memory.
 * The same code either way: a page is the same wherever it is made.
 */
export class DashboardViews {
  readonly data: DashboardData;
  // A finished run's page never changes and a 200×10×3 run takes ~0.6 s to draw: keep the last few.
  private runPages = new Map<string, { gradesKey: string | undefined; gradesVersion: string | undefined; html: string }>();

  constructor(
    readonly store: Store,
    private readonly writable: boolean,
  ) {
    this.data = new DashboardData(store);
  }

  read(view: ViewName, req: ViewRequest): Promise<ViewResult> {
    const { params: p, query: q } = req;
    switch (view) {
      case 'runs':
        return this.runs(q);
      case 'runsPage':
        return this.runsPage(q);
      case 'run':
        return this.run(p.id);
      case 'runPage':
        return this.runPage(p.id);
      case 'trend':
        return this.trend(p.name, q);
      case 'trendPage':
        return this.trendPage(p.name, q);
      case 'compare':
        return this.compare(q);
      case 'comparePage':
        return this.comparePage(q);
      case 'gradingQueue':
        return gradingQueueView(this.store, this.data, this.writable, req);
      case 'latestGrade':
        return latestGradeView(this.store, req);
      case 'auditQueue':
        return auditQueueView(this.store, this.writable, req);
      case 'auditSummary':
        return auditSummaryView(this.store, req);
    }
  }

  private async runs(q: Record<string, string>): Promise<ViewResult> {
    const [offset, limit] = [whole(q.offset, 0, 0, 1e9), whole(q.limit, RUNS_PAGE, 1, 500)];
    if (offset === undefined) return badQuery('offset', 'a whole number ≥ 0');
    if (limit === undefined) return badQuery('limit', 'a whole number from 1 to 500');
    return jsonResult(await this.data.runs(q.name, { offset, limit }));
  }

  private async runsPage(q: Record<string, string>): Promise<ViewResult> {
    const name = q.name || undefined;
    const offset = whole(q.offset, 0, 0, 1e9);
    if (offset === undefined) return html('Runs', '<h1>Runs</h1><p>The offset must be a whole number ≥ 0. <a href="/">First page</a></p>', undefined, 400);
    const page = await this.data.runs(name, { offset });
    const items = page.runs;
    // "vs previous": the next older run of the same name in the (newest-first) list.
    const previous = new Map<string, string>();
    items.forEach((r, idx) => {
      const older = items.slice(idx + 1).find((o) => o.name === r.name);
      if (older) previous.set(r.id, older.id);
    });
    return html('Runs', runsListBody(items, name, previous) + pager(page, name));
  }

  private async run(ref: string): Promise<ViewResult> {
    const body = await this.data.runJson(ref);
    return body ? jsonResult(body) : notFound(await this.data.whyUnresolved(ref));
  }

  private async runPage(ref: string): Promise<ViewResult> {
    const { data } = this;
    // `latest` and id prefixes name a run too; pages are cached by the id they resolve to.
    const id = (await data.resolve(ref)) ?? ref;
    // A grade given since (here, or by the CLI) changes the page.
    const cached = this.runPages.get(id);
    const version = await data.gradesVersion();
    if (cached && (cached.gradesVersion === version || cached.gradesKey === (await data.gradesKey(id)))) {
      cached.gradesVersion = version;
      return { status: 200, type: 'html', body: cached.html };
    }
    const loaded = await data.load(id);
    if (!loaded)
      return html('Not found', `<h1>No run “${esc(id)}”</h1><p>${esc(await data.whyUnresolved(id))}</p><p><a href="/">All runs</a></p>`, undefined, 404);
    const enc = encodeURIComponent;
    const links = `<p><a href="/trend/${enc(loaded.run.name)}">Trend of ${esc(loaded.run.name)}</a> · <a href="/api/runs/${enc(id)}">JSON</a> · <a href="/runs/${enc(id)}/grade">Grade outputs</a></p>`;
    const stats = loaded.run.N * loaded.run.M <= STATS_SAMPLES_LIMIT ? computeStats(await this.store.samples.list(id)) : undefined;
    const body = renderRunSections(loaded.run, loaded.summary, loaded.tensor, {
      sampleBase: `/api/runs/${enc(id)}/samples`,
      links,
      ...(stats ? { stats } : {}),
      ...(loaded.errors ? { errors: loaded.errors } : {}),
    });
    const rendered = page({ title: `${loaded.run.name} · assay`, body, script: CELL_DETAIL_SCRIPT, nav: true });
    if (loaded.run.status !== 'running') {
      if (this.runPages.size >= 20) this.runPages.delete(this.runPages.keys().next().value!);
      this.runPages.set(id, { gradesKey: loaded.gradesKey, gradesVersion: loaded.gradesVersion, html: rendered });
    }
    return { status: 200, type: 'html', body: rendered };
  }

  private async trend(name: string, q: Record<string, string>): Promise<ViewResult> {
    const limit = whole(q.limit, TREND_RUNS, 1, MAX_TREND_RUNS);
    if (limit === undefined) return badQuery('limit', `a whole number from 1 to ${MAX_TREND_RUNS}`);
    const t = await this.data.trend(name, limit);
    return t ? jsonResult(t) : notFound(`no runs named "${name}"`);
  }

  private async trendPage(name: string, q: Record<string, string>): Promise<ViewResult> {
    const limit = whole(q.limit, TREND_RUNS, 1, MAX_TREND_RUNS);
    if (limit === undefined) return html('Trend', `<h1>Trend</h1><p>The limit must be a whole number from 1 to ${MAX_TREND_RUNS}.</p>`, undefined, 400);
    const t = await this.data.trend(name, limit);
    if (!t) return html('Not found', `<h1>No runs with that name</h1><p><a href="/">All runs</a></p>`, undefined, 404);
    const more =
      t.totalRuns > t.runs.length
        ? `<p class="muted">The newest ${t.runs.length} of ${t.totalRuns.toLocaleString('en')} runs of this name. <a href="/trend/${encodeURIComponent(t.name)}?limit=${Math.min(MAX_TREND_RUNS, t.totalRuns)}">Show ${t.totalRuns > MAX_TREND_RUNS ? `the newest ${MAX_TREND_RUNS}` : 'all'}</a></p>`
        : '';
    return html(`Trend ${t.name}`, more + trendBody(t));
  }

  private async compare(q: Record<string, string>): Promise<ViewResult> {
    const [a, b, lv, adjust] = [q.a, q.b, level(q.level), adjustOf(q.adjust)];
    if (!a || !b) return jsonResult({ error: 'invalid_request', message: 'query parameters "a" and "b" (run ids) are required', field: a ? 'b' : 'a' }, 400);
    if (lv === undefined) return jsonResult({ error: 'invalid_request', message: 'query parameter "level" must be a number in (0, 1)', field: 'level' }, 400);
    if (adjust === undefined)
      return jsonResult({ error: 'invalid_request', message: 'query parameter "adjust" must be "none" or "holm"', field: 'adjust' }, 400);
    const r = await this.data.compare(a, b, { level: lv, adjust });
    return 'missing' in r ? notFound(`no run with id "${r.missing}"`) : jsonResult(r);
  }

  private async comparePage(q: Record<string, string>): Promise<ViewResult> {
    // The pickers offer the newest runs; any other run is compared by its id in the URL.
    const runs = (await this.store.runs.list({ limit: 200 })).map((r) => ({ id: r.id, name: r.name, createdAt: r.createdAt }));
    const [a, b] = [q.a, q.b];
    const adjust = adjustOf(q.adjust) ?? 'none';
    if (!a || !b) return html('Compare', compareBody(undefined, runs, defaultPair(runs)));
    const r = await this.data.compare(a, b, { adjust });
    if ('missing' in r) return html('Compare', compareBody(undefined, runs, { a, b }, `No run with id “${r.missing}”.`), undefined, 404);
    return html('Compare', compareBody(r, runs, { a, b, adjust }));
  }
}

/** The reader that answers on the caller's thread (a store in memory, or one no other thread can open). */
export function localReader(store: Store, writable: boolean): { read: DashboardViews['read']; close: () => Promise<void>; views: DashboardViews } {
  const views = new DashboardViews(store, writable);
  return { read: (view, req) => views.read(view, req), close: async () => {}, views };
}

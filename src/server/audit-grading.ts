import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as z from 'zod';
import type { RateInterval } from '../core/alignment.js';
import { firstIssue } from '../core/issues.js';
import { formatRate, NO_VALUE } from '../core/show.js';
import { VISIBLE_CONTROLS_SCRIPT } from '../core/text.js';
import { gradingOrder, groundingGrading, type GroundingGrading } from '../ground/grading.js';
import { esc } from '../report/html-layout.js';
import { GradeError } from '../store/errors.js';
import type { AuditRecord, ClaimGradeRecord, Store } from '../store/types.js';
import { checkMediaType, clientKey } from './analyze.js';
import { defaultLimits, RateLimiter, type ServerLimits } from './limits.js';
import { reply, viewRequest } from './view-reply.js';
import { jsonResult, type DashboardReader, type ViewRequest, type ViewResult } from './view-types.js';

/**
 * Grading a stored batch of grounding audits on the dashboard (issue 27, item 5; `assay audits import`):
 *
 *   GET  /audits/:id/grade                        the page: a claim, its evidence, keys p (supported) / f (not)
 *   GET  /api/audits/:id/grading?seed=            the claims nobody graded yet, in a seeded random order, and the summary
 *   POST /api/audits/:id/grades {answer, claim, supported, grader}  → 201 the grade, the detector's status, the summary
 *
 * The detector's status is sent only with a claim's grade (no anchoring), as the run grading page hides the verdict.
 * Writes need a server started with `--grading`, JSON bodies (415 otherwise) and pass its token and Host checks.
 */

const MAX_ITEMS = 200;
const MAX_BODY = 16 * 1024;

const Body = z
  .object({ answer: z.string().min(1).max(1000), claim: z.number().int().min(1), supported: z.boolean(), grader: z.string().min(1).max(200) })
  .strict();

const interval = (r: RateInterval | null) => (r ? `${formatRate(r.rate)} [${formatRate(r.low)}, ${formatRate(r.high)}]` : NO_VALUE);

/** The summary in lines for the page (the CLI's words): graded, TPR/TNR/κ, the detector's and the corrected unsupported rate. */
export function auditSummaryLines(g: GroundingGrading): string[] {
  const a = g.alignment;
  const c = g.corrected_unsupported_rate;
  return [
    `${g.graded} of ${g.claims} audited claims graded by people (positive: supported) · tp ${a.tp} · fp ${a.fp} · fn ${a.fn} · tn ${a.tn}`,
    `TPR ${interval(a.tpr)} · TNR ${interval(a.tnr)} · κ ${a.kappa === null ? NO_VALUE : a.kappa.toFixed(2)}`,
    `unsupported claims: detector ${formatRate(g.unsupported_rate)}; corrected by the grades ${c ? `${formatRate(c.rate)} [${formatRate(c.low)}, ${formatRate(c.high)}]` : `${NO_VALUE} (no grades yet)`}`,
  ];
}

const supported = (s: string) => s === 'STRONG' || s === 'WEAK';

/** The batch's summary: graded, alignment, the corrected unsupported rate, and the page's lines. */
function summaryOf(audit: AuditRecord, grades: readonly ClaimGradeRecord[]) {
  const g = groundingGrading(audit.claims, grades);
  return { ...g, lines: auditSummaryLines(g) };
}

/** GET /api/audits/:id/grading: the claims nobody graded yet, in a seeded random order, and the summary. */
export async function auditQueueView(store: Store, writable: boolean, req: ViewRequest): Promise<ViewResult> {
  const audit = await store.audits.get(req.params.id);
  if (!audit) return missingAudit(req.params.id);
  const s = req.query.seed;
  if (s !== undefined && !/^\d{1,9}$/.test(s))
    return jsonResult({ error: 'invalid_request', message: 'query parameter "seed" must be a whole number', field: 'seed' }, 400);
  const grades = await store.audits.listGrades(audit.id);
  const order = gradingOrder(audit.claims, grades, s === undefined ? 1 : Number(s));
  const items = order.slice(0, MAX_ITEMS).map(({ status: _hidden, ...claim }) => claim);
  return jsonResult({ audit: { id: audit.id, name: audit.name }, left: order.length, items, writable, summary: summaryOf(audit, grades) });
}

/** The batch's summary alone (sent with each grade stored). */
export async function auditSummaryView(store: Store, req: ViewRequest): Promise<ViewResult> {
  const audit = await store.audits.get(req.params.id);
  return audit ? jsonResult(summaryOf(audit, await store.audits.listGrades(audit.id))) : missingAudit(req.params.id);
}

const missingAudit = (id: string) => jsonResult({ error: 'not_found', message: `no audit batch with id "${id}" in the store` }, 404);

export function registerAuditGrading(
  app: Hono,
  store: Store,
  reader: DashboardReader,
  writable: boolean,
  render: (c: Context, title: string, body: string, script?: string, status?: 200 | 404) => Response | Promise<Response>,
  limits: ServerLimits = defaultLimits,
): void {
  // Each client's requests draw on a budget of their own, as the run grading API's do (429 with Retry-After past it).
  const limiter = new RateLimiter(limits.rateBurst, limits.ratePerSecond);
  app.use('/api/audits/*', async (c, next) => {
    const wait = limiter.take(clientKey(c));
    if (wait <= 0) return next();
    c.header('Retry-After', String(Math.max(1, Math.ceil(wait))));
    return c.json({ error: 'rate_limited', message: `too many grading requests from this client; retry after ${Math.max(1, Math.ceil(wait))} s` }, 429);
  });
  const missing = (c: Context) => c.json({ error: 'not_found', message: `no audit batch with id "${c.req.param('id')}" in the store` }, 404);

  app.get('/audits/:id/grade', async (c) => {
    const audit = await store.audits.get(c.req.param('id'));
    if (!audit) return render(c, 'Not found', `<h1>No audit batch “${esc(c.req.param('id'))}”</h1><p><a href="/">Back</a></p>`, undefined, 404);
    return render(c, `Grade ${audit.name}`, auditGradingBody(audit, writable), AUDIT_GRADING_SCRIPT);
  });

  app.get('/api/audits/:id/grading', async (c) => reply(c, await reader.read('auditQueue', viewRequest(c))));

  app.post(
    '/api/audits/:id/grades',
    bodyLimit({ maxSize: MAX_BODY, onError: (c) => c.json({ error: 'payload_too_large', message: `the body exceeds the ${MAX_BODY}-byte limit` }, 413) }),
    async (c) => {
      const media = checkMediaType(c.req.header('content-type'));
      if (media) return c.json({ error: 'unsupported_media_type', message: media }, 415);
      if (!writable)
        return c.json(
          { error: 'grading_off', message: 'this server does not take grades: start it with assay serve --grading (it then opens the store for writing)' },
          403,
        );
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return c.json({ error: 'invalid_json', message: 'the body is not valid JSON' }, 400);
      }
      const parsed = Body.safeParse(body, { reportInput: true });
      if (!parsed.success) return c.json({ error: 'invalid_request', ...firstIssue(parsed.error, Body) }, 400);
      const audit = await store.audits.get(c.req.param('id'));
      if (!audit) return missing(c);
      try {
        const [grade] = await store.audits.recordGrades(audit.id, [parsed.data]);
        const status = audit.claims.find((x) => x.answer === grade.answer && x.claim === grade.claim)!.status;
        // The summary reads every grade of the batch: the dashboard's reader makes it, off the event loop.
        const summary = await reader.read('auditSummary', { params: { id: audit.id }, query: {} });
        if (summary.status !== 200) return reply(c, summary);
        return c.json({ grade, status, agree: supported(status) === grade.supported, summary: JSON.parse(summary.body) as unknown }, 201);
      } catch (err) {
        if (GradeError.isInstance(err)) return c.json({ error: 'invalid_grade', message: err.message, ...(err.field ? { field: err.field } : {}) }, 400);
        throw err;
      }
    },
  );
}

function auditGradingBody(audit: AuditRecord, writable: boolean): string {
  const off = writable
    ? ''
    : '<p class="worse" data-testid="grading-off">This server does not take grades: start it with <code>assay serve --grading</code>.</p>';
  return `<h1>Grade claims <span class="muted">${esc(audit.name)} (${esc(audit.id)})</span></h1>${off}
<section class="card" aria-label="grader"><label>Your name (grader)<input type="text" id="a-grader" autocomplete="name" required></label></section>
<section class="card" aria-label="claim to grade" id="a-item" data-audit="${esc(audit.id)}">
<p id="a-progress" class="muted"></p>
<h2>Claim</h2><p id="a-claim" data-testid="claim"></p>
<h3>Evidence</h3><pre id="a-evidence"></pre>
<p class="g-keys"><button type="button" data-key="p">Supported (p)</button> <button type="button" data-key="f" class="failbtn">Not supported (f)</button> <button type="button" data-key="s" class="plain">Skip (s)</button></p>
</section>
<section class="card" aria-label="last graded" id="a-last" hidden></section>
<section class="card" aria-label="the detector against the grades"><h2>The detector against people</h2><div id="a-summary" data-testid="summary"></div></section>
<p id="a-status" role="status" aria-live="polite" class="muted"></p>
<style>.failbtn{background:#cf222e;border-color:#cf222e}.plain{background:#f6f8fa;color:#1f2328;border-color:#d0d7de}.agree{color:#116329;font-weight:700}.disagree{color:#a40e26;font-weight:700}</style>`;
}

/** Everything user-written (claims, evidence, names) is set with textContent only. */
const AUDIT_GRADING_SCRIPT = `(function(){
var root=document.getElementById('a-item');if(!root)return;var id=root.getAttribute('data-audit');
function $(x){return document.getElementById(x);}
${VISIBLE_CONTROLS_SCRIPT}
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=vis(text);if(cls)e.className=cls;return e;}
var params=new URLSearchParams(location.search);
var graderEl=$('a-grader');graderEl.value=params.get('grader')||localStorage.getItem('assay-grader')||'';
var Q=null,pos=0,busy=false;
function status(t,bad){var s=$('a-status');s.textContent=vis(t);s.className=bad?'worse':'muted';}
function summary(s){var box=$('a-summary');box.textContent='';s.lines.forEach(function(l){box.appendChild(el('p',l));});}
function show(){if(!Q||pos>=Q.items.length){$('a-progress').textContent='Nothing left to grade.';$('a-claim').textContent='';$('a-evidence').textContent='';return;}
var it=Q.items[pos];$('a-progress').textContent='Claim '+(pos+1)+' of '+Q.items.length+' to grade · answer '+vis(it.answer)+', claim '+it.claim;
$('a-claim').textContent=vis(it.text);$('a-evidence').textContent=vis(it.evidence===undefined?'(no evidence retrieved)':it.evidence);}
function load(){fetch('/api/audits/'+encodeURIComponent(id)+'/grading'+(params.get('seed')?'?seed='+encodeURIComponent(params.get('seed')):'')).then(function(r){return r.json().then(function(b){if(!r.ok)throw new Error(b.message);return b;});})
.then(function(b){Q=b;pos=0;summary(b.summary);show();}).catch(function(e){status(e.message,true);});}
function grade(sup){if(!Q||pos>=Q.items.length||busy)return;var g=graderEl.value.trim();if(!g){status('Enter your name as grader first.',true);graderEl.focus();return;}
localStorage.setItem('assay-grader',g);var it=Q.items[pos];busy=true;
fetch('/api/audits/'+encodeURIComponent(id)+'/grades',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({answer:it.answer,claim:it.claim,supported:sup,grader:g})})
.then(function(r){return r.json().then(function(b){if(!r.ok)throw new Error(b.message);return b;});})
.then(function(b){var last=$('a-last');last.hidden=false;last.textContent='';last.appendChild(el('h2','Last graded'));last.appendChild(el('p',it.text));
var p=el('p');p.setAttribute('data-testid','agreement');p.appendChild(el('strong','You: '+(sup?'supported':'not supported')+' · detector: '+b.status+' · '));p.appendChild(b.agree?el('span','✓ agree','agree'):el('span','✗ disagree','disagree'));last.appendChild(p);
summary(b.summary);status('Stored.');pos++;show();}).catch(function(e){status(e.message,true);}).then(function(){busy=false;});}
document.addEventListener('keydown',function(e){if(e.target&&(e.target.tagName==='INPUT'||e.target.tagName==='SELECT'))return;if(e.metaKey||e.ctrlKey||e.altKey)return;
if(e.key==='p')grade(true);else if(e.key==='f')grade(false);else if(e.key==='s'){if(Q&&pos<Q.items.length){pos++;show();}}});
Array.prototype.forEach.call(document.querySelectorAll('#a-item [data-key]'),function(b){b.addEventListener('click',function(){var k=b.getAttribute('data-key');if(k==='p')grade(true);else if(k==='f')grade(false);else if(Q&&pos<Q.items.length){pos++;show();}});});
load();})();`;

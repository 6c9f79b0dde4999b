/** The grounding page: submit a query (and an answer to audit), see each claim by status with its evidence beside it. */

export function groundingBody(hasEngine: boolean): string {
  return `<h1>Grounding audit</h1>
${hasEngine ? '' : '<p class="worse">This server has no knowledge base (start it with <code>assay serve --kb &lt;dir&gt;</code>); /analyze answers 503.</p>'}
<section class="card"><form id="analyze-form">
<p><label for="q">Query</label><br><input type="text" id="q" name="query" required style="width:100%"></p>
<p><label for="a">Answer to audit (leave empty to have the configured LLM answer)</label><br><textarea id="a" name="answer" rows="6"></textarea></p>
<p><label>Evidence passages per claim <input type="text" inputmode="numeric" name="top_k" value="5" size="3"></label> <button type="submit">Analyze</button></p>
</form></section>
<section id="report" aria-live="polite"></section>`;
}

/**
 * Renders the POST /analyze JSON with DOM calls and textContent only: claims and evidence are user data.
 * The answer is shown with each claim highlighted by status (colour, underline style and a glyph), then
 * each claim beside its best evidence. A claim shows its one status and that status's reason: what the
 * evidence states instead (CONTRADICTED, "60 days; evidence says 14 days", as describeConflict writes it),
 * the details it leaves out, or what the claim checker (an NLI model, an LLM judge) read, when one ran.
 */
export const GROUNDING_SCRIPT = `(function(){
var form=document.getElementById('analyze-form');var out=document.getElementById('report');
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}
var GLYPH={STRONG:'\\u2713',WEAK:'~',UNSUPPORTED:'\\u2717',CONTRADICTED:'\\u2260'};
function label(c){return (GLYPH[c.status]||'?')+' '+c.status+(c.error?'':' \\u00b7 support '+Number(c.support_score).toFixed(3));}
function answerView(r){var p=el('p',null,'answer');var text=String(r.answer||'');var pos=0;
(r.claims_analysis||[]).forEach(function(c,idx){var at=text.indexOf(c.claim,pos);if(at<0)return;
if(at>pos)p.appendChild(document.createTextNode(text.slice(pos,at)));
var m=el('mark',c.claim,'claim-mark '+c.status);m.title='claim '+(idx+1)+': '+label(c);m.setAttribute('data-claim',String(idx+1));
p.appendChild(m);p.appendChild(el('sup',GLYPH[c.status]||'?'));pos=at+c.claim.length;});
if(pos<text.length)p.appendChild(document.createTextNode(text.slice(pos)));return p;}
function render(r){out.textContent='';var card=el('section',null,'card');
card.appendChild(el('h2','Report'));
var risk=el('p');risk.appendChild(el('strong','Hallucination risk: '+r.hallucination_risk));
risk.appendChild(el('span',' \\u00b7 confidence '+Number(r.confidence_score).toFixed(2)+' \\u00b7 evidence coverage '+r.evidence_coverage+(r.hallucination_flag?' \\u00b7 hallucination flag: low similarity across all claims':'')+(r.partial?' \\u00b7 partial analysis (some claims could not be scored)':'')+(r.checker?' \\u00b7 claims checked by '+r.checker.id+(r.checker.cost_usd!==undefined?' ($'+Number(r.checker.cost_usd).toFixed(6)+')':''):'')));
card.appendChild(risk);card.appendChild(el('h3','Answer'));card.appendChild(answerView(r));
card.appendChild(el('p','\\u2713 STRONG: supported \\u00b7 ~ WEAK: partly supported \\u00b7 \\u2717 UNSUPPORTED: not supported by the knowledge base \\u00b7 \\u2260 CONTRADICTED: the knowledge base states a detail differently','muted'));
out.appendChild(card);
var claims=el('section',null,'card');claims.appendChild(el('h2','Claims and their evidence'));out.appendChild(claims);
if(!(r.claims_analysis||[]).length)claims.appendChild(el('p','No claims were found in the answer.','muted'));
(r.claims_analysis||[]).forEach(function(c,idx){var row=el('div',null,'claimrow');
var claim=el('div',null,'claim '+c.status);claim.setAttribute('data-status',c.status);claim.setAttribute('aria-label','claim '+(idx+1)+': '+c.status);
claim.appendChild(el('div',(idx+1)+'. '+c.claim));claim.appendChild(el('div',label(c),'muted'));
if(c.error)claim.appendChild(el('div','Could not be scored: '+c.error,'worse'));
(c.contradicted_details||[]).forEach(function(x){claim.appendChild(el('div','Contradicted: '+x.claim+'; evidence says '+x.evidence,'worse contradiction'));});
if(c.unverified_details&&c.unverified_details.length)claim.appendChild(el('div','Not found in the evidence: '+c.unverified_details.join(', '),'worse'));
if(c.check)claim.appendChild(el('div','Claim checker: '+c.check.verdict+(c.check.score!==undefined?' (entailment '+Number(c.check.score).toFixed(2)+')':'')+(c.check.reasons&&c.check.reasons.length?' \u2014 '+c.check.reasons.join('; '):''),c.check.verdict==='entailed'?'muted':'worse'));
row.appendChild(claim);var ev=el('div',null,'claim evidence');
if(c.evidence){ev.appendChild(el('div','Evidence \\u00b7 '+c.evidence.source+' ('+c.evidence.chunk_id+') \\u00b7 score '+Number(c.evidence.score).toFixed(3),'muted'));ev.appendChild(el('div',c.evidence.text));}
else ev.appendChild(el('div','No evidence retrieved.','muted'));
row.appendChild(ev);claims.appendChild(row);});}
form.addEventListener('submit',function(e){e.preventDefault();var fd=new FormData(form);var body={query:String(fd.get('query')||'')};
var a=String(fd.get('answer')||'');if(a.trim())body.answer=a;var k=String(fd.get('top_k')||'').trim();if(k)body.top_k=Number(k);
var button=form.querySelector('button');button.disabled=true;out.textContent='Analyzing\\u2026';
fetch('/analyze',{method:'POST',headers:{'content-type':'application/json'},credentials:'same-origin',body:JSON.stringify(body)})
.then(function(res){return res.json().then(function(j){return {ok:res.ok,status:res.status,body:j};},function(){return {ok:false,status:res.status,body:null};});})
.then(function(r){if(r.ok)render(r.body);else{out.textContent='';out.appendChild(el('p','Error '+r.status+': '+(r.body&&r.body.message||'request failed'),'worse'));}},
function(err){out.textContent='';out.appendChild(el('p','Request failed: '+err,'worse'));})
.then(function(){button.disabled=false;});});
})();`;

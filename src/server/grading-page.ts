import { GRADING_DEFAULTS, GRADING_DESIGNS } from '../grades/queue.js';
import { esc } from '../report/html-layout.js';
import { VISIBLE_CONTROLS_SCRIPT } from '../core/text.js';

/**
 * The grading page (`/runs/:id/grade`), keyboard first: p pass, f fail, s skip, u undo, ←/→ (or j/k) move.
 * It shows the input, the output and what the rule asks; the rule's verdict and reasons stay hidden until the
 * person has graded the output, then are shown with agreement marked. The queue comes from the grading API
 * (server/grading.ts), drawn at random with known probabilities; `?i=&j=` grades one output picked by hand.
 */
export function gradingBody(runId: string, writable: boolean): string {
  const off = writable
    ? ''
    : '<p class="worse" data-testid="grading-off">This server does not take grades: start it with <code>assay serve --grading</code> (it then opens the store for writing). You can look at the queue.</p>';
  return `<h1>Grade outputs <span class="muted" id="g-run"></span></h1>${off}
<section class="card" aria-label="grading settings"><form class="inline" id="g-form">
<label>Your name (grader)<input type="text" id="g-grader" name="grader" autocomplete="name" required></label>
<label>Rule<select id="g-rule" name="rule"></select></label>
<label>Queue<select id="g-design" name="design"><option value="stratified">stratified by the rule's verdict</option><option value="uniform">uniform random</option></select></label>
<label>Outputs<input type="text" inputmode="numeric" id="g-count" name="count" size="4"></label>
<button type="submit">Load queue</button></form>
<p class="muted" id="g-queue"></p></section>
<section class="card" aria-label="output to grade" id="g-item" data-run="${esc(runId)}">
<p id="g-progress" class="muted"></p>
<h2>What the rule asks</h2><p id="g-asks"></p>
<div class="grid"><div><h3>Input</h3><pre id="g-input"></pre></div><div><h3>Output</h3><pre id="g-output" data-testid="grading-output"></pre></div></div>
<div id="g-verdict" aria-live="polite"></div>
<p class="g-keys"><button type="button" data-key="p">Pass (p)</button> <button type="button" data-key="f" class="failbtn">Fail (f)</button> <button type="button" data-key="s" class="plain">Skip (s)</button> <button type="button" data-key="u" class="plain">Undo (u)</button> <button type="button" data-key="ArrowLeft" class="plain">← Previous</button> <button type="button" data-key="ArrowRight" class="plain">Next →</button></p>
</section>
<section class="card" aria-label="last graded" id="g-last" hidden></section>
<p id="g-status" role="status" aria-live="polite" class="muted"></p>
<style>.failbtn{background:#cf222e;border-color:#cf222e}.plain{background:#f6f8fa;color:#1f2328;border-color:#d0d7de}.agree{color:#116329;font-weight:700}.disagree{color:#a40e26;font-weight:700}</style>`;
}

/** Everything user-written (inputs, outputs, reasons, names) is set with textContent only. */
export const GRADING_SCRIPT = `(function(){
var root=document.getElementById('g-item');if(!root)return;var runId=root.getAttribute('data-run');
function $(id){return document.getElementById(id);}
${VISIBLE_CONTROLS_SCRIPT}
/* Bidi and control characters shown as marks (core/text.ts): "txt.exe" after U+202E must not read "exe.txt". */
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=vis(text);if(cls)e.className=cls;return e;}
var params=new URLSearchParams(location.search);
var graderEl=$('g-grader');graderEl.value=params.get('grader')||localStorage.getItem('assay-grader')||'';
var designs=${JSON.stringify(GRADING_DESIGNS)};$('g-design').value=designs.indexOf(params.get('design'))>=0?params.get('design'):${JSON.stringify(GRADING_DEFAULTS.design)};
$('g-count').value=params.get('count')||'';
var Q=null,pos=0,given=[];
function status(t,bad){var s=$('g-status');s.textContent=vis(t);s.className=bad?'worse':'muted';}
function who(){return Q&&Q.rule.kind==='verifier'?'judge':'rule';}
function word(b){return b?'PASS':'FAIL';}
function verdictNode(it){var box=el('div');
if(!it.mine){box.appendChild(el('p','The '+who()+'\\'s verdict is hidden until you grade this output.','muted'));box.setAttribute('data-state','hidden');return box;}
box.setAttribute('data-state','revealed');var r=it.rule;var p=el('p');p.appendChild(el('strong','You: '+word(it.mine.grade==='pass')+' · '+who()+': '+(r.verdict==='pass'||r.verdict==='fail'?word(r.verdict==='pass'):'no verdict ('+r.verdict+')')+' · '));
if(r.agree===true)p.appendChild(el('span','✓ agree','agree'));else if(r.agree===false)p.appendChild(el('span','✗ disagree','disagree'));
p.setAttribute('data-testid','agreement');box.appendChild(p);
if(r.reasons&&r.reasons.length){box.appendChild(el('h3',who()==='judge'?'The judge\\'s reasons':'Reasons'));var ul=el('ul');r.reasons.forEach(function(x){ul.appendChild(el('li',x));});box.appendChild(ul);}
if(r.error)box.appendChild(el('p','Error: '+r.error,'worse'));return box;}
function show(){if(!Q||!Q.items.length){$('g-progress').textContent='Nothing to grade.';return;}
var it=Q.items[pos];var mine=Q.items.filter(function(x){return x.mine;}).length;
$('g-progress').textContent='Output '+(pos+1)+' of '+Q.items.length+' · (i='+it.i+', j='+it.j+') · '+mine+' graded by you';
$('g-input').textContent=vis(typeof it.input==='string'?it.input:JSON.stringify(it.input,null,2));
$('g-output').textContent=vis(it.output!==undefined?it.output:'(no output: '+it.generationError+')');
var v=$('g-verdict');v.textContent='';v.appendChild(verdictNode(it));root.setAttribute('data-i',it.i);root.setAttribute('data-j',it.j);}
function load(){var q=new URLSearchParams();['rule','design','seed','count','i','j'].forEach(function(k){var v=params.get(k);if(v)q.set(k,v);});
var g=graderEl.value.trim();if(g)q.set('grader',g);status('Loading…');
fetch('/api/runs/'+encodeURIComponent(runId)+'/grading?'+q.toString(),{credentials:'same-origin'}).then(function(r){return r.json().then(function(b){return {ok:r.ok,b:b};});}).then(function(r){
if(!r.ok){status(r.b.message||'could not load the queue',true);return;}
Q=r.b;$('g-run').textContent=vis(Q.run.name+' · '+Q.run.id);
var sel=$('g-rule');sel.textContent='';Q.rules.forEach(function(x){var o=el('option',x.name+(x.kind==='verifier'?' (verifier)':''));o.value=x.name;if(x.name===Q.rule.name)o.selected=true;sel.appendChild(o);});
$('g-asks').textContent=vis(Q.rule.asks);
$('g-queue').textContent=Q.queue.population===null?'One output picked by hand: its grade is stored without a draw probability (the corrected rate then assumes it was drawn at random).':
'Queue: '+Q.queue.count+' of the '+Q.queue.population+' outputs the rule decided that nobody graded yet, drawn '+Q.queue.design+'.'+(Q.queue.left?' '+Q.queue.left+' more did not fit this page (their outputs are long): reload for them once these are graded.':'')+(Q.gradesNeeded.grades===null?'':' About '+Q.gradesNeeded.grades+' grades give a corrected interval '+Math.round(Q.gradesNeeded.width*100)+' points wide.');
var first=Q.items.findIndex(function(x){return !x.mine;});pos=first<0?0:first;show();status(first<0&&Q.items.length?'Every output of this queue is graded by you.':'Ready: p pass · f fail · s skip · u undo · ←/→ move');},function(e){status('Request failed: '+e,true);});}
function lastCard(it){var c=$('g-last');c.textContent='';c.hidden=false;c.appendChild(el('h2','Just graded: output (i='+it.i+', j='+it.j+')'));c.appendChild(verdictNode(it));}
function move(d){if(!Q||!Q.items.length)return;var n=pos+d;if(n<0){status('This is the first output.');return;}
if(n>=Q.items.length){var left=Q.items.filter(function(x){return !x.mine;}).length;status(left?'End of the queue: '+left+' not graded. Move back with ←.':'End of the queue: all graded.');return;}pos=n;show();}
function grade(g){if(!Q||!Q.items.length)return;var name=graderEl.value.trim();if(!name){status('Enter your name as grader first.',true);graderEl.focus();return;}
localStorage.setItem('assay-grader',name);var it=Q.items[pos];
var body={i:it.i,j:it.j,rule:Q.rule.name,grade:g,grader:name};if(it.probability!==undefined){body.probability=it.probability;body.design=it.design;}
status('Saving…');return fetch('/api/runs/'+encodeURIComponent(runId)+'/grades',{method:'POST',headers:{'content-type':'application/json'},credentials:'same-origin',body:JSON.stringify(body)})
.then(function(r){return r.json().then(function(b){return {ok:r.ok,b:b};});}).then(function(r){if(!r.ok){status(r.b.message||'not saved',true);return;}
it.mine={id:r.b.grade.id,grade:r.b.grade.grade};it.rule=r.b.rule;given.push(it);lastCard(it);status('Saved: '+word(g==='pass')+' for output (i='+it.i+', j='+it.j+').');
if(pos+1<Q.items.length){pos++;show();}else show();},function(e){status('Request failed: '+e,true);});}
function undo(){var it=given.pop();if(!it){status('Nothing to undo on this page.');return;}
return fetch('/api/runs/'+encodeURIComponent(runId)+'/grades/'+it.mine.id,{method:'DELETE',credentials:'same-origin'}).then(function(r){return r.json().then(function(b){return {ok:r.ok,b:b};});}).then(function(r){
if(!r.ok){given.push(it);status(r.b.message||'not undone',true);return;}
if(r.b.mine){it.mine=r.b.mine;it.rule=r.b.rule;}else{delete it.mine;delete it.rule;}
pos=Q.items.indexOf(it);$('g-last').hidden=true;show();status('Undone: output (i='+it.i+', j='+it.j+').');},function(e){given.push(it);status('Request failed: '+e,true);});}
function run1(k){if(k==='p')return grade('pass');if(k==='f')return grade('fail');if(k==='s')return move(1);if(k==='u')return undo();
if(k==='ArrowRight'||k==='ArrowDown'||k==='j')return move(1);if(k==='ArrowLeft'||k==='ArrowUp'||k==='k')return move(-1);}
/* Keys are applied one after another: a key pressed while a grade is being saved waits for it, so it acts on
   the output the page shows next, never on one already being graded (what the page says is what is stored). */
var chain=Promise.resolve();
function act(k){chain=chain.then(function(){return run1(k);}).then(null,function(e){status('Request failed: '+e,true);});}
document.addEventListener('keydown',function(e){var t=e.target;if(e.ctrlKey||e.metaKey||e.altKey)return;
if(t&&(t.tagName==='INPUT'||t.tagName==='TEXTAREA'||t.tagName==='SELECT'))return;
var k=e.key.length===1?e.key.toLowerCase():e.key;if(['p','f','s','u','j','k','ArrowRight','ArrowLeft','ArrowUp','ArrowDown'].indexOf(k)<0)return;e.preventDefault();act(k);});
root.addEventListener('click',function(e){var b=e.target&&e.target.closest?e.target.closest('button[data-key]'):null;if(b)act(b.getAttribute('data-key'));});
$('g-form').addEventListener('submit',function(e){e.preventDefault();params.set('rule',$('g-rule').value||'');params.set('design',$('g-design').value);
var n=$('g-count').value.trim();if(n)params.set('count',n);else params.delete('count');params.delete('i');params.delete('j');
history.replaceState(null,'','?'+params.toString());if(graderEl.value.trim())localStorage.setItem('assay-grader',graderEl.value.trim());load();});
load();})();`;

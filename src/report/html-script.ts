import { HEATMAP_BLOCK_JS } from './charts-heatmap.js';

/**
 * The small inline script of run pages: a click (or Enter) on a heatmap cell shows that sample's input,
 * output and every validator outcome. It reads samples embedded in the page (static report) or fetches
 * them from `data-sample-base` (dashboard). User text is only ever set with textContent.
 * On a binned heatmap (a large run), a click on a bin draws its block at full resolution below the heatmap,
 * with the server's own block renderer (charts-heatmap.ts) over the tensor embedded in the page.
 */
export const CELL_DETAIL_SCRIPT = `(function(){
var tensorEl=document.getElementById('assay-tensor');var T=tensorEl?JSON.parse(tensorEl.textContent):null;
var heatmapBlock=${HEATMAP_BLOCK_JS};
function zoom(k,i,j){if(!T)return;var fig=document.querySelector('figure.heatmap[data-k="'+k+'"]');var box=fig&&fig.querySelector('.zoom');if(!box)return;
var i0=Math.floor(i/T.rows)*T.rows,i1=Math.min(T.N,i0+T.rows),j0=Math.floor(j/T.cols)*T.cols,j1=Math.min(T.M,j0+T.cols);
var cw=Math.max(14,Math.min(28,Math.floor(860/(j1-j0))));
box.textContent='';var h=document.createElement('h3');h.textContent=T.names[k]+': inputs '+(i0+1)+'\u2013'+i1+' \u00d7 samples '+(j0+1)+'\u2013'+j1+' at full resolution';
var close=document.createElement('button');close.type='button';close.textContent='Close';close.setAttribute('data-close-zoom','');h.appendChild(close);box.appendChild(h);
var chart=document.createElement('div');chart.className='chart';
chart.innerHTML=heatmapBlock({codes:T.codes,N:T.N,M:T.M,K:T.K,k:k,name:T.names[k],i0:i0,i1:i1,j0:j0,j1:j1,cellW:cw,rowH:18,styles:T.styles});
box.appendChild(chart);box.hidden=false;box.setAttribute('tabindex','-1');box.focus();}
var panel=document.getElementById('cell-detail');if(!panel)return;
var src=document.getElementById('assay-samples');var embedded=src?JSON.parse(src.textContent):null;
var base=panel.getAttribute('data-sample-base');
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}
function json(v){return typeof v==='string'?v:JSON.stringify(v,null,2);}
function ms(x){return x<1?'< 1 ms':x<10000?Math.round(x)+' ms':(x/1000).toFixed(1)+' s';}
function trace(t){var sec=el('section');sec.setAttribute('data-testid','trace');sec.appendChild(el('h3','Steps ('+t.steps.length+')'));
var ol=el('ol');ol.className='trace';
t.steps.forEach(function(s,n){var li=el('li');li.setAttribute('data-step',String(n+1));
var head=['Step '+(n+1)];if(s.finishReason)head.push(s.finishReason);if(typeof s.latencyMs==='number')head.push(ms(s.latencyMs));
if(s.usage)head.push(s.usage.promptTokens+' in / '+s.usage.completionTokens+' out');li.appendChild(el('p',head.join(' \u00b7 '),'muted'));
(s.messages||[]).forEach(function(m){li.appendChild(el('p',m.role+': '+m.content));});
if(s.text)li.appendChild(el('p',s.text));
(s.toolCalls||[]).forEach(function(c){var box=el('div',undefined,c.error!==undefined?'call failed':'call');box.setAttribute('data-tool',c.name);
var h=el('p');h.appendChild(el('strong','called '));h.appendChild(el('code',c.name));if(typeof c.durationMs==='number')h.appendChild(el('span',' \u00b7 '+ms(c.durationMs),'muted'));box.appendChild(h);
box.appendChild(el('p','arguments','muted'));box.appendChild(el('pre',c.arguments!==undefined&&c.arguments!==null?json(c.arguments):(c.argumentsText||'(none)')));
if(c.error!==undefined){var e=el('p','error: '+c.error,'worse');e.setAttribute('data-testid','tool-error');box.appendChild(e);}
else{box.appendChild(el('p','result','muted'));var r=el('pre',c.result===undefined?'(no result)':json(c.result));r.setAttribute('data-testid','tool-result');box.appendChild(r);
if(c.truncated)box.appendChild(el('p','(cut where it was stored; the model had all of it)','muted'));}
li.appendChild(box);});
ol.appendChild(li);});
sec.appendChild(ol);
if(t.ended==='max-steps')sec.appendChild(el('p','The step limit ended it before a final answer.','worse'));
if(t.ended==='max-turns')sec.appendChild(el('p','The turn limit ended the conversation before its stop condition.','worse'));
return sec;}
function render(d,i,j){panel.textContent='';
panel.appendChild(el('h2','Input '+(i+1)+', sample '+(j+1)));
if(!d){panel.appendChild(el('p',embedded?'This sample has not been run.':base?'This sample has not been run or could not be loaded.':'Outputs are not included in this report (too many samples); the outcomes are in the heatmaps and the table view.','muted'));return;}
panel.appendChild(el('h3','Input'));panel.appendChild(el('pre',typeof d.input==='string'?d.input:JSON.stringify(d.input,null,2)));
if(d.trajectory)panel.appendChild(trace(d.trajectory));
panel.appendChild(el('h3',d.trajectory?'Final answer':'Output'));
if(d.generationError){panel.appendChild(el('p','Generation failed: '+d.generationError,'worse'));}
var out=el('pre',d.output===undefined||d.output===null?'(no output)':d.output);out.setAttribute('data-testid','cell-output');panel.appendChild(out);
panel.appendChild(el('h3','Validators'));var t=el('table');var hr=el('tr');['validator','outcome','detail'].forEach(function(h){hr.appendChild(el('th',h));});t.appendChild(hr);
(d.outcomes||[]).forEach(function(o){var r=el('tr');r.appendChild(el('td',o.validator));
var g=o.outcome==='pass'?'\\u2713 pass':o.outcome==='fail'?'\\u2717 fail':o.outcome==='error'?'! error':'\\u00b7 '+o.outcome;
r.appendChild(el('td',g,o.outcome==='fail'?'worse':o.outcome==='pass'?'better':''));
r.appendChild(el('td',[o.error,(o.reasons||[]).join('; ')].filter(Boolean).join(' \\u2014 ')));t.appendChild(r);});
panel.appendChild(t);
if(typeof d.latencyMs==='number'){panel.appendChild(el('p','latency '+ms(d.latencyMs)+', '+d.attempts+' attempt(s)','muted'));}
panel.focus();}
var selected=null;
function show(a,i,j){if(selected)selected.removeAttribute('stroke');var rect=a.querySelector('rect');if(rect){rect.setAttribute('stroke','#0969da');rect.setAttribute('stroke-width','3');selected=rect;}
if(embedded||!base){render(embedded?embedded[i+','+j]:null,i,j);return;}
panel.textContent='Loading\\u2026';
fetch(base+'/'+i+'/'+j,{credentials:'same-origin'}).then(function(r){return r.ok?r.json():null;}).then(function(d){render(d,i,j);},function(){render(null,i,j);});}
document.addEventListener('click',function(e){var t=e.target;
var c=t&&t.closest?t.closest('[data-close-zoom]'):null;if(c){var box=c.closest('.zoom');box.hidden=true;box.textContent='';return;}
var a=t&&t.closest?t.closest('a'):null;if(!a)return;
var h=a.getAttribute('href')||a.getAttribute('xlink:href')||'';var z=/^#zoom-(\\d+)-(\\d+)-(\\d+)$/.exec(h);
if(z){e.preventDefault();zoom(+z[1],+z[2],+z[3]);return;}
var m=/^#cell-(\\d+)-(\\d+)$/.exec(h);if(!m)return;
e.preventDefault();show(a,+m[1],+m[2]);});
})();`;

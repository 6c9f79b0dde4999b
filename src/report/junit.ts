import { writeFile } from 'node:fs/promises';
import type { RunSummary, ValidatorSummary } from '../core/summary-types.js';
import { alignmentText, countsWhose, figureText, gradesText, shownRate } from './grading-text.js';
import { formatRate, inputInline } from '../core/show.js';
import { INPUTS_SHOWN, perInputItems } from './per-input.js';
import { errorCausesText, errorShareText, gradesToDecideText, stoppedText, toDecideText, verdictLabel, type ReportMeta } from './meta.js';

/**
 * JUnit XML (`--junit`): one testsuite per run, one testcase per validator, so CI systems list each rule.
 * Mapping, chosen to agree with the exit code:
 *   pass → passed testcase;
 *   fail → <failure type="below-min-success">;
 *   inconclusive → <failure type="inconclusive"> (the job fails), or <skipped> with --allow-inconclusive;
 *   error (more error cells than maxErrorShare, bounds that do not decide it) → <error type="error-share">,
 *   or <error type="infrastructure"> when no cell was decided at all; never skipped.
 * Error cells are never failures; their count and share are in the message and in <system-out>.
 */

export function xmlEscape(s: string): string {
  return (
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      // eslint-disable-next-line no-control-regex
      .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, '')
  );
}

function describe(v: ValidatorSummary): string {
  const shown = shownRate(v);
  const ci = shown.low !== null ? ` [${formatRate(shown.low)}, ${formatRate(shown.high)}]` : '';
  const errs = errorShareText(v);
  const figure = figureText(v);
  return `rate ${formatRate(shown.rate)}${ci}${errs ? ` (${errs})` : ''}${figure ? ` (${figure})` : ''}, minSuccess ${formatRate(v.minSuccess)}; ${countsWhose(v)}${v.counts.pass} pass, ${v.counts.fail} fail, ${v.counts.error} error${v.counts.pending ? `, ${v.counts.pending} pending` : ''}`;
}

/** "; below the per-input floor 80%: #3 "I want a refund", #7 …" for a rule whose floors fail, '' otherwise. */
function failingText(v: ValidatorSummary, meta: ReportMeta): string {
  const p = v.perInput;
  if (!p?.failing.length) return '';
  const named = p.failing.slice(0, INPUTS_SHOWN).map((i) => `#${i + 1}${meta.inputs?.[i] !== undefined ? ` ${inputInline(meta.inputs[i], 40)}` : ''}`);
  const more = p.failing.length > INPUTS_SHOWN ? ` and ${p.failing.length - INPUTS_SHOWN} more` : '';
  return `; below the per-input floor ${formatRate(p.minSuccess)}: ${named.join(', ')}${more}`;
}

type Kind = 'passed' | 'failure' | 'error' | 'skipped';

function caseKind(v: ValidatorSummary, allowInconclusive: boolean): Kind {
  if (v.verdict === 'error' || (v.counts.pass + v.counts.fail === 0 && v.counts.error > 0)) return 'error';
  if (v.verdict === 'pass') return 'passed';
  if (v.verdict === 'fail') return 'failure';
  return allowInconclusive ? 'skipped' : 'failure';
}

export function renderJunitReport(s: RunSummary, meta: ReportMeta): string {
  const allow = meta.allowInconclusive ?? false;
  const kinds = s.validators.map((v) => caseKind(v, allow));
  const count = (k: Kind) => kinds.filter((x) => x === k).length;
  const seconds = meta.finishedAt ? Math.max(0, (Date.parse(meta.finishedAt) - Date.parse(meta.createdAt)) / 1000) : 0;
  const suiteName = xmlEscape(meta.name);
  const props: [string, string | number][] = [
    ['runId', meta.runId],
    ['status', meta.status],
    ['system', meta.systemId],
    ['N', s.N],
    ['M', s.M],
    ['K', s.K],
    ['interval', `${s.options.stopping === 'sequential' ? 'confidence-sequence' : s.options.interval} ${s.options.level}`],
    ['verdictMode', s.options.verdict],
    ['maxErrorShare', s.options.maxErrorShare],
    ['stopping', s.options.stopping],
    ['errorShare', s.overall.errorShare === null ? '' : s.overall.errorShare],
  ];
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const totals = `tests="${kinds.length}" failures="${count('failure')}" errors="${count('error')}" skipped="${count('skipped')}" time="${seconds.toFixed(3)}"`;
  out.push(`<testsuites name="assay" ${totals}>`);
  out.push(`  <testsuite name="${suiteName}" ${totals} timestamp="${xmlEscape(meta.createdAt)}">`);
  out.push('    <properties>');
  for (const [k, v] of props) out.push(`      <property name="${k}" value="${xmlEscape(String(v))}"/>`);
  out.push('    </properties>');
  s.validators.forEach((v, idx) => {
    const kind = kinds[idx];
    const text = describe(v);
    const floors = v.perInput && v.perInput.verdict !== 'pass' ? perInputItems(v.perInput, meta.inputs).join('; ') : '';
    const causes = errorCausesText(v, meta.stats);
    const why = [stoppedText(v, s.M), v.reason, causes, floors, toDecideText(v, s.N), gradesToDecideText(v)].filter(Boolean).join('; ');
    const people = v.grading ? `; against people: ${gradesText(v.grading)}, ${alignmentText(v.grading)}` : '';
    out.push(`    <testcase classname="assay.${suiteName}" name="${xmlEscape(v.name)}" time="0">`);
    if (kind === 'failure') {
      const type = v.verdict === 'fail' ? 'below-min-success' : 'inconclusive';
      out.push(
        `      <failure type="${type}" message="${xmlEscape(`${v.message || v.name}: ${verdictLabel(v.verdict, s.options.verdict, { upper: false })} (${text})${failingText(v, meta)}`)}">${xmlEscape(`${text}. ${why}.`)}</failure>`,
      );
    } else if (kind === 'error') {
      const noCell = v.counts.pass + v.counts.fail === 0;
      const message = `${noCell ? `no decided cell: ${v.counts.error} error(s)` : `error: ${v.reason}`}${causes ? `; ${causes}` : ''}`;
      out.push(`      <error type="${noCell ? 'infrastructure' : 'error-share'}" message="${xmlEscape(message)}">${xmlEscape(`${text}. ${why}.`)}</error>`);
    } else if (kind === 'skipped') {
      out.push(`      <skipped message="${xmlEscape(`inconclusive, accepted by --allow-inconclusive (${text})`)}"/>`);
    }
    out.push(`      <system-out>${xmlEscape(`${verdictLabel(v.verdict, s.options.verdict, { upper: false })}: ${text}; ${why}${people}`)}</system-out>`);
    out.push('    </testcase>');
  });
  out.push('  </testsuite>');
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

export async function writeJunitReport(path: string, s: RunSummary, meta: ReportMeta): Promise<void> {
  await writeFile(path, renderJunitReport(s, meta));
}

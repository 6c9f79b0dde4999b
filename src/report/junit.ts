import { writeFile } from 'node:fs/promises';
import type { RunSummary, ValidatorSummary } from '../core/summary-types.js';
import { pct, type ReportMeta } from './meta.js';

/**
 * JUnit XML (`--junit`): one testsuite per run, one testcase per validator, so CI systems list each rule.
 * Mapping, chosen to agree with the exit code:
 *   pass → passed testcase;
 *   fail → <failure type="below-min-success">;
 *   inconclusive → <failure type="inconclusive"> (the job fails), or <skipped> with --allow-inconclusive;
 *   no decided cell at all (every cell an infrastructure error) → <error type="infrastructure">.
 * Error cells are never failures; their count is in the message and in <system-out>.
 */

export function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    // eslint-disable-next-line no-control-regex
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, '');
}

function describe(v: ValidatorSummary): string {
  const ci = v.ci ? ` [${pct(v.ci.low)}, ${pct(v.ci.high)}]` : '';
  return `rate ${pct(v.rate)}${ci}, minSuccess ${pct(v.minSuccess)}; ${v.counts.pass} pass, ${v.counts.fail} fail, ${v.counts.error} error${v.counts.pending ? `, ${v.counts.pending} pending` : ''}`;
}

type Kind = 'passed' | 'failure' | 'error' | 'skipped';

function caseKind(v: ValidatorSummary, allowInconclusive: boolean): Kind {
  if (v.counts.pass + v.counts.fail === 0 && v.counts.error > 0) return 'error';
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
    ['interval', `${s.options.interval} ${s.options.level}`],
    ['verdictMode', s.options.verdict],
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
    out.push(`    <testcase classname="assay.${suiteName}" name="${xmlEscape(v.name)}" time="0">`);
    if (kind === 'failure') {
      const type = v.verdict === 'fail' ? 'below-min-success' : 'inconclusive';
      const more = v.verdict === 'inconclusive' && v.samplesToDecide !== undefined ? ` About ${v.samplesToDecide} more samples would likely decide it.` : '';
      out.push(`      <failure type="${type}" message="${xmlEscape(`${v.message || v.name}: ${v.verdict} (${text})`)}">${xmlEscape(`${text}.${more}`)}</failure>`);
    } else if (kind === 'error') {
      out.push(`      <error type="infrastructure" message="${xmlEscape(`no decided cell: ${v.counts.error} infrastructure error(s)`)}">${xmlEscape(text)}</error>`);
    } else if (kind === 'skipped') {
      out.push(`      <skipped message="${xmlEscape(`inconclusive, accepted by --allow-inconclusive (${text})`)}"/>`);
    }
    out.push(`      <system-out>${xmlEscape(`${v.verdict}: ${text}`)}</system-out>`);
    out.push('    </testcase>');
  });
  out.push('  </testsuite>');
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

export async function writeJunitReport(path: string, s: RunSummary, meta: ReportMeta): Promise<void> {
  await writeFile(path, renderJunitReport(s, meta));
}

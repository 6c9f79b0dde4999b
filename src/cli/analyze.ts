import type { Command } from 'commander';
import { ExitCode, UsageError } from '../errors.js';
import { createGroundingEngine } from '../ground/service.js';
import { GroundingRequestError, GroundingUnavailableError, type GroundingReport } from '../ground/types.js';
import { DEFAULT_KB, embedderConfig, embedderOptions, llmConfig, llmOptions, numberFlag } from '../ground/cli-options.js';
import { describeConflict } from '../ground/details.js';

/** `assay analyze --kb <dir> --query Q [--answer A] [--json]`: audit an answer against a knowledge base. */
export function register(program: Command): void {
  const cmd = program
    .command('analyze')
    .description('Audit an answer claim by claim against a knowledge base (or generate it with --llm / --llm-model)')
    .option('--kb <dir>', 'knowledge base directory', DEFAULT_KB)
    .requiredOption('--query <text>', 'the user query')
    .option('--answer <text>', 'the answer to audit; without it the configured LLM generates one')
    .option('--top-k <n>', 'evidence chunks per claim, 1–50', '5')
    .option('--details <mode>', 'numbers/dates/names check: count | report | off', 'count')
    .option('--json', 'print the report as JSON');
  llmOptions(embedderOptions(cmd)).action(async (o) => {
    if (!['count', 'report', 'off'].includes(o.details))
      throw new UsageError(`--details: expected count, report or off, found "${o.details}"`, { path: '--details' });
    const topK = numberFlag('--top-k', o.topK, { min: 1, max: 50 });
    const llm = await llmConfig(o);
    const engine = await createGroundingEngine({ kbDir: o.kb, embedderConfig: embedderConfig(o), llm, details: o.details });
    let report: GroundingReport;
    try {
      report = await engine.analyze({ query: o.query, answer: o.answer, top_k: topK });
    } catch (err) {
      if (err instanceof GroundingRequestError) {
        const flag = err.field && `--${err.field.replace('_', '-')}`;
        throw new UsageError(`${flag ? `${flag}: ` : ''}${err.message}`, { path: flag });
      }
      // The LLM or the embedder is down: an infrastructure error, reported without a stack trace.
      if (err instanceof GroundingUnavailableError) {
        process.stderr.write(`assay: ${err.message}\n`);
        process.exitCode = ExitCode.INTERNAL;
        return;
      }
      throw err;
    }
    process.stdout.write(o.json ? JSON.stringify(report, null, 2) + '\n' : formatReport(report));
  });
}

export function formatReport(r: GroundingReport): string {
  const lines = [
    `risk ${r.hallucination_risk}  confidence ${r.confidence_score.toFixed(2)}  coverage ${r.evidence_coverage}` +
      `${r.hallucination_flag ? '  HALLUCINATION FLAG' : ''}${r.partial ? '  PARTIAL (some claims could not be scored)' : ''}`,
    '',
  ];
  r.claims_analysis.forEach((c, i) => {
    lines.push(`${i + 1}. [${c.status} ${c.support_score.toFixed(2)}] ${c.claim}`);
    if (c.error) lines.push(`   error: ${c.error}`);
    if (c.evidence) lines.push(`   evidence ${c.evidence.chunk_id}: "${c.evidence.text.replace(/\s+/g, ' ').slice(0, 160)}"`);
    else if (!c.error) lines.push('   no evidence retrieved');
    // the status's reason, never a second verdict: what contradicts the claim, or what the evidence leaves out
    for (const x of c.contradicted_details ?? []) lines.push(`   contradicted: ${describeConflict(x)}`);
    if (c.unverified_details?.length) lines.push(`   not in evidence: ${c.unverified_details.join(', ')}`);
  });
  const contradicted = r.claims_analysis.filter((c) => c.status === 'CONTRADICTED').length;
  if (r.unsupported_claims.length)
    lines.push('', `unsupported: ${r.unsupported_claims.length} of ${r.claims_analysis.length} claims${contradicted ? ` (${contradicted} contradicted)` : ''}`);
  return lines.join('\n') + '\n';
}

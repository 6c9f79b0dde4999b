import { visibleControls } from '../core/text.js';
import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { analyzeExitCode, answerOutcome, checkAnswersFile, parseRisk, readAnswers, type AnswerLine, type Risk } from '../ground/ci.js';
import { orderedWorkers } from '../core/ordered.js';
import { createGroundingEngine, type OpenGroundingEngine } from '../ground/service.js';
import { GroundingRequestError, GroundingUnavailableError, type GroundingReport } from '../ground/types.js';
import {
  checkerConfig,
  checkerOptions,
  DEFAULT_KB,
  embedderConfig,
  embedderOptions,
  llmConfig,
  llmOptions,
  type CheckerFlags,
  type LlmFlags,
} from './ground-options.js';
import { intFlag, oneOfFlag } from './flags.js';
import { claimReasons } from '../ground/reasons.js';
import { BatchReportWriter, outcomeReason, writeBatchReports, type AnswerResult, type GroundingBatch } from '../report/grounding.js';
import { checkReportTargets, STDOUT } from '../report/targets.js';
import { ReportWriteError } from '../report/write.js';

interface AnalyzeFlags extends LlmFlags, CheckerFlags {
  kb: string;
  query?: string;
  answer?: string;
  answers?: string;
  topK: string;
  details: string;
  failOn?: string;
  json?: string | boolean;
  junit?: string;
  markdown?: string;
  modelDir?: string;
  allowRemote?: boolean;
  embeddingUrl?: string;
}

/** Answers analysed at once in a batch: the CPU work is sequential anyway; an LLM or a remote embedder waits in parallel. */
const BATCH_CONCURRENCY = 4;
/** Answers read ahead of the oldest one not yet written (the reorder buffer): a slow answer holds the file back. */
const BATCH_WINDOW = 64;

const EXIT_CODES =
  '\nExit codes: 0 analysed (and, with --fail-on, every answer below that risk); 1 an answer at or above --fail-on;\n2 bad usage, answers file or knowledge base; 3 an answer could not be analysed (the LLM, the embedder or the claim\nchecker failed), or with --fail-on a partial analysis below it (claims that could not be scored might raise the risk).';

/** `assay analyze`: audit an answer (or a file of answers) claim by claim against a knowledge base. */
export function register(program: Command): void {
  const cmd = program
    .command('analyze')
    .description('Audit answers claim by claim against a knowledge base (--answer, or many with --answers; or generate one with --llm / --llm-model)')
    .option('--kb <dir>', 'knowledge base directory', DEFAULT_KB)
    .option('--query <text>', 'the user query')
    .option('--answer <text>', 'the answer to audit; without it the configured LLM generates one')
    .option('--answers <file>', 'audit many answers: JSON Lines, one {"query": …, "answer": …} a line, with an optional "id"')
    .option('--top-k <n>', 'evidence chunks per claim, 1–50', '5')
    .option('--details <mode>', 'numbers/dates/names check: count | report | off', 'count')
    .option('--fail-on <risk>', "exit 1 when an answer's hallucination risk is at this level or above: low, medium or high")
    .option('--json [file]', 'the JSON report, to stdout or to a file ("-" for stdout); with --answers, every report and a summary')
    .option('--junit <file>', 'write a JUnit XML report: one testcase per answer')
    .option('--markdown <file>', 'write a Markdown report for a CI job summary');
  checkerOptions(llmOptions(embedderOptions(cmd)))
    .addHelpText('after', EXIT_CODES)
    .action(async (o: AnalyzeFlags) => {
      await analyzeCommand(o);
    });
}

async function analyzeCommand(o: AnalyzeFlags): Promise<void> {
  oneOfFlag('--details', o.details, ['count', 'report', 'off']);
  const topK = intFlag('--top-k', o.topK, { min: 1, max: 50 });
  const failOn = o.failOn !== undefined ? parseRisk(o.failOn, '--fail-on') : undefined;
  const single = o.answers === undefined;
  if (!single && (o.query !== undefined || o.answer !== undefined))
    throw new UsageError(
      `--answers and ${o.query !== undefined ? '--query' : '--answer'}: expected one answer (--query, --answer) or a file of them (--answers), found both`,
      {
        path: '--answers',
      },
    );
  if (single && o.query === undefined)
    throw new UsageError('--query: expected the user query (or --answers <file> to audit many answers)', { path: '--query' });
  const targets = { json: o.json === true ? STDOUT : o.json || undefined, junit: o.junit, markdown: o.markdown };
  // Report paths are checked before any work, so the analysis is never lost to a report that cannot be written.
  checkReportTargets(targets);
  const llm = await llmConfig(o);
  // Checked here, before the KB is opened, in the CLI's own flags (the engine's message names request fields).
  if (single && o.answer === undefined && llm === undefined)
    throw new UsageError(
      '--answer: expected the answer to audit (--answer <text>, or --answers <file> for many), or an LLM to generate it (--llm <file> or --llm-model <name>)',
      { path: '--answer' },
    );
  const checking = await checkerConfig(o);
  // The whole file is checked (streamed) before anything is analysed or written.
  const generate = llm !== undefined;
  if (!single) await checkAnswersFile(o.answers!, { generate });
  const engine = await createGroundingEngine({ kbDir: o.kb, embedderConfig: embedderConfig(o), llm, details: o.details as 'count', ...checking });
  try {
    if (single)
      await analyzeOne(
        engine,
        { id: 'answer', line: 0, query: o.query!, ...(o.answer !== undefined ? { answer: o.answer } : {}) },
        topK,
        failOn,
        targets,
        o.kb,
      );
    else await analyzeMany(engine, readAnswers(o.answers!, { generate }), topK, failOn, targets, o.kb);
  } finally {
    await engine.close();
  }
}

/** One answer: the readable report (or its JSON) as before; the other reports as a batch of one. */
async function analyzeOne(
  engine: OpenGroundingEngine,
  line: AnswerLine,
  topK: number | undefined,
  failOn: Risk | undefined,
  targets: { json?: string; junit?: string; markdown?: string },
  kb: string,
): Promise<void> {
  let report: GroundingReport | undefined;
  let error: string | undefined;
  try {
    report = await engine.analyze({ query: line.query, answer: line.answer, top_k: topK });
  } catch (err) {
    if (GroundingRequestError.isInstance(err)) {
      const flag = err.field && `--${err.field.replace('_', '-')}`;
      throw new UsageError(`${flag ? `${flag}: ` : ''}${err.message}`, { path: flag });
    }
    // The LLM, the embedder or the claim checker is down: an infrastructure error, reported without a stack trace.
    if (!GroundingUnavailableError.isInstance(err)) throw err;
    error = err.message;
    process.stderr.write(`assay: ${err.message}\n`);
  }
  const result: AnswerResult = { id: line.id, query: line.query, outcome: answerOutcome(report, failOn), ...(report ? { report } : { error }) };
  const batch: GroundingBatch = { kb, ...(failOn ? { failOn } : {}), results: [result] };
  // --json is the report itself for one answer (as it always was), written only when there is one; the readable
  // report goes to stderr when another report takes stdout.
  const { json, ...others } = targets;
  if (report) {
    if (json === STDOUT) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    else (Object.values(others).includes(STDOUT) ? process.stderr : process.stdout).write(formatReport(report));
  }
  if (result.outcome !== 'pass' && report)
    process.stderr.write(`assay: ${result.outcome === 'fail' ? 'fail' : 'not decided'}: ${outcomeReason(result, failOn)}\n`);
  if (json && json !== STDOUT && report) {
    await writeJsonFile(json, report);
    process.stderr.write(`assay: wrote ${json}\n`);
  }
  for (const f of await writeBatchReports(others, batch)) process.stderr.write(`assay: wrote ${f}\n`);
  process.exitCode = analyzeExitCode([result.outcome]);
}

async function writeJsonFile(file: string, report: GroundingReport): Promise<void> {
  try {
    await writeFile(file, JSON.stringify(report, null, 2) + '\n', 'utf8');
  } catch (err) {
    throw new ReportWriteError(`--json: could not write ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
}

/**
 * Many answers, streamed: read one at a time, a few analysed at once, each result written (in file order) to the
 * table's and the reports' temporary files as it is done; the table and the reports are put together at the end
 * from the batch's counts. Memory does not grow with the number of answers.
 */
async function analyzeMany(
  engine: OpenGroundingEngine,
  lines: AsyncIterable<AnswerLine>,
  topK: number | undefined,
  failOn: Risk | undefined,
  targets: { json?: string; junit?: string; markdown?: string },
  kb: string,
): Promise<void> {
  // With a report on stdout, the table goes to stderr so stdout stays parseable.
  const human = Object.values(targets).includes(STDOUT) ? process.stderr : process.stdout;
  const writer = new BatchReportWriter({ kb, ...(failOn ? { failOn } : {}) }, targets, { to: human, color: Boolean(human.isTTY) });
  // Interrupted, the temporary files go with the command: removed, then the signal raised again (its usual exit).
  const interrupted = (signal: NodeJS.Signals) => {
    writer.dispose();
    process.kill(process.pid, signal);
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.once(s, interrupted);
  try {
    await orderedWorkers(
      lines,
      { concurrency: BATCH_CONCURRENCY, window: BATCH_WINDOW },
      async (line): Promise<AnswerResult> => {
        let report: GroundingReport | undefined;
        let error: string | undefined;
        try {
          report = await engine.analyze({ query: line.query, answer: line.answer, top_k: topK });
        } catch (err) {
          // Not the answer's fault (the file was checked): the LLM, embedder or checker failed, or a generated answer was empty.
          if (!(GroundingUnavailableError.isInstance(err) || GroundingRequestError.isInstance(err))) throw err;
          error = err.message;
        }
        return { id: line.id, line: line.line, query: line.query, outcome: answerOutcome(report, failOn), ...(report ? { report } : { error }) };
      },
      (result) => writer.add(result),
    );
  } catch (err) {
    writer.dispose();
    throw err;
  } finally {
    for (const s of signals) process.off(s, interrupted);
  }
  const { summary, written } = await writer.finish();
  for (const f of written) process.stderr.write(`assay: wrote ${f}\n`);
  process.exitCode = analyzeExitCode(summary);
}

export function formatReport(r: GroundingReport): string {
  const lines = [
    `risk ${r.hallucination_risk}  confidence ${r.confidence_score.toFixed(2)}  coverage ${r.evidence_coverage}` +
      `${r.hallucination_flag ? '  HALLUCINATION FLAG' : ''}${r.partial ? '  PARTIAL (some claims could not be scored)' : ''}`,
    '',
  ];
  r.claims_analysis.forEach((c, i) => {
    lines.push(`${i + 1}. [${c.status} ${c.support_score.toFixed(2)}] ${c.claim}`);
    if (c.evidence) lines.push(`   evidence ${c.evidence.chunk_id}: "${c.evidence.text.replace(/\s+/g, ' ').slice(0, 160)}"`);
    else if (!c.error) lines.push('   no evidence retrieved');
    // the status's reason, never a second verdict: what contradicts the claim, what the evidence leaves out, what the checker read
    for (const why of claimReasons(c)) lines.push(`   ${why}`);
  });
  const contradicted = r.claims_analysis.filter((c) => c.status === 'CONTRADICTED').length;
  if (r.unsupported_claims.length)
    lines.push('', `unsupported: ${r.unsupported_claims.length} of ${r.claims_analysis.length} claims${contradicted ? ` (${contradicted} contradicted)` : ''}`);
  if (r.checker) {
    const c = r.checker;
    const spent = [
      c.usage ? `${c.usage.promptTokens + c.usage.completionTokens} tokens` : '',
      c.cost_usd !== undefined ? `$${c.cost_usd.toFixed(6)}` : '',
    ].filter(Boolean);
    lines.push(`claim checker ${c.id}: ${c.checked} checked${c.errors ? `, ${c.errors} could not be` : ''}${spent.length ? `; ${spent.join(', ')}` : ''}`);
  }
  // The answer's claims and the evidence are untrusted text: bidi and control characters shown as marks.
  return visibleControls(lines.join('\n')) + '\n';
}

import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { ExitCode, UsageError } from '../errors.js';
import { parseJudgeConfig } from '../judge/config.js';
import { fileFlagAlone, readProviderFile } from '../providers/provider-file.js';
import { createSandbox } from '../sandbox/index.js';
import { formatDelta, promptDeltas, type PromptVersion } from '../spade/deltas.js';
import { assertionAgreement, formatAgreement, setAgreement } from '../spade/agreement.js';
import { selectionToConfig } from '../spade/export.js';
import { matrixToJson, readCandidates, readData, readMatrix, readSubsumptions } from '../spade/io.js';
import { llmFromOptions, NO_LLM_MESSAGE, usageLine, type SpadeLlm } from '../spade/llm.js';
import { proposeSubsumptions } from '../spade/propose.js';
import { select, type Method, type SubObjective } from '../spade/select.js';
import { formatErrors, formatSelection } from '../spade/report.js';
import { pruneSubsumptions, subsumptionRoots } from '../spade/subsumption.js';
import { synthesizeCandidates, whyNoCandidates } from '../spade/synthesize.js';
import { categoriseDelta, evaluateTaxonomy, type AnnotatedDelta } from '../spade/taxonomy.js';
import { gitVersions, readVersionsFile } from '../spade/versions.js';
import { evaluateOn, evaluationJudge, labelledExamples, type EvalFlags, type LabelFlags } from './spade-labels.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';
import { intFlag, oneOfFlag, shareFlag } from './flags.js';
import { orNoValue } from '../core/show.js';

/** `assay spade …`: SPADE's steps, from prompt history to a selected validator config. */

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : s + '\n');

async function versionsFrom(file: string | undefined, git: string | undefined): Promise<PromptVersion[]> {
  if (file && git) throw new UsageError(`expected a versions file or --git <prompt file>, found both (${file} and --git ${git})`);
  const versions = git ? await gitVersions(git) : file ? await readVersionsFile(file) : undefined;
  if (!versions) throw new UsageError('expected a versions file (JSON/YAML) or --git <prompt file>, found neither');
  if (!versions.length) throw new UsageError(`${file ?? git}: expected at least one prompt version, found none`, { file: file ?? git });
  return versions;
}

/** The deltas of a history; `--no-initial` leaves out the delta from the empty version 0 to the first. */
async function deltasFrom(file: string | undefined, o: { git?: string; initial?: boolean }) {
  const versions = await versionsFrom(file, o.git);
  return { versions, deltas: promptDeltas(versions, { initial: o.initial !== false }) };
}

const positiveInt = (flag: string, v: string): number => intFlag(flag, v, { min: 1 })!;
const unit = (flag: string, v: string): number => shareFlag(flag, v)!;

interface LlmFlags {
  model?: string;
  baseUrl?: string;
  provider?: string;
  llm?: string;
}

async function requireLlm(o: LlmFlags): Promise<SpadeLlm> {
  const llm = await llmFromOptions({ model: o.model, baseURL: o.baseUrl, provider: o.provider, config: o.llm });
  if (!llm) throw new UsageError(NO_LLM_MESSAGE);
  return llm;
}

/** The LLM options of the generative steps: a provider file, or a provider, model and endpoint. */
function llmOptions(c: Command): Command {
  return c
    .option('--llm <file>', 'the LLM as a provider object in YAML/JSON, as under system: (e.g. anthropic: { model: claude-sonnet-4-5 })')
    .option('--provider <name>', 'openai (default), anthropic, google, bedrock, azure, mistral, ollama (else ASSAY_SPADE_PROVIDER)')
    .option('--model <name>', 'model (else ASSAY_SPADE_MODEL)')
    .option('--base-url <url>', 'endpoint (for openai, else OPENAI_BASE_URL)');
}

/** `--judge <file>` and `--judge-model` both name the judge: one of them, never both. */
function oneJudge(o: { judge?: string; judgeModel?: string; judgeBaseUrl?: string }): void {
  fileFlagAlone('--judge', o.judge, { '--judge-model': o.judgeModel, '--judge-base-url': o.judgeBaseUrl });
}

const RUN_FLAG = ['--run <run>', 'people\'s grades of this stored run as the labelled examples: its id, "latest" or the start of its id'] as const;
const RULE_FLAG = ['--rule <name>', "with --run: only this rule's grades (default: every rule's; a FAIL on any makes an output bad)"] as const;

const JUDGE_FILE = [
  '--judge <file>',
  "judge of llm assertions as a provider object in YAML/JSON, as under a verifier's judge: (e.g. anthropic: { model: claude-sonnet-4-5 })",
] as const;

async function writeJson(file: string | undefined, data: unknown): Promise<void> {
  if (file) await writeFile(file, JSON.stringify(data, null, 2) + '\n');
}

const num3 = (x: number | null) => orNoValue(x, (v) => v.toFixed(3));
const INITIAL = ['--no-initial', 'leave out the delta from the empty version 0 to the first version (the paper includes it)'] as const;

export function register(program: Command): void {
  const spade = program.command('spade').description('SPADE: assertions from prompt version histories, selected by integer programming');

  spade
    .command('deltas')
    .description('sentence-level deltas between consecutive prompt versions')
    .argument('[versions]', 'JSON/YAML list of prompt versions')
    .option('--git <file>', 'use the git history of this prompt file')
    .option(...INITIAL)
    .option('--json <file>', 'also write the deltas as JSON')
    .action(async (file: string | undefined, o: { git?: string; initial?: boolean; json?: string }) => {
      const { deltas } = await deltasFrom(file, o);
      out(deltas.map(formatDelta).join('\n\n') || '(a single version and --no-initial: no deltas)');
      await writeJson(o.json, deltas);
    });

  const taxonomy = spade
    .command('taxonomy')
    .description("categorise added sentences into the paper's taxonomy (LLM); --eval scores agreement with human tags")
    .argument('[versions]', 'JSON/YAML list of prompt versions')
    .option('--git <file>', 'use the git history of this prompt file')
    .option(...INITIAL)
    .option('--eval <file>', 'annotated deltas (taxonomy_prompt_deltas.json) to score against')
    .option('--limit <n>', 'only the first n annotated deltas');
  llmOptions(taxonomy)
    .option('--json <file>', 'also write the result as JSON')
    .action(async (file: string | undefined, o: LlmFlags & { git?: string; initial?: boolean; eval?: string; limit?: string; json?: string }) => {
      if (o.eval) {
        const data = (await readData(o.eval)) as { rows?: AnnotatedDelta[] };
        if (!Array.isArray(data?.rows)) throw new UsageError(`${o.eval}: expected {"rows": [{diff, ground_truth_tags, …}]}`, { file: o.eval });
        const bad = data.rows.findIndex((r) => typeof r?.diff !== 'string' || !Array.isArray(r?.ground_truth_tags));
        if (bad >= 0)
          throw new UsageError(`${o.eval}: rows[${bad}]: expected a string "diff" and a list "ground_truth_tags"`, { file: o.eval, path: `rows[${bad}]` });
        const limit = o.limit !== undefined ? positiveInt('--limit', o.limit) : undefined;
        const llm = await requireLlm(o);
        const rows = limit ? data.rows.slice(0, limit) : data.rows;
        const r = await evaluateTaxonomy(llm, rows);
        out(`taxonomy agreement with human tags (${llm.model}): ${r.deltas} deltas, ${r.errors.length} errors`);
        out(
          `  micro precision ${num3(r.micro.precision)}, recall ${num3(r.micro.recall)}, F1 ${num3(r.micro.f1)}; exact match ${r.exactMatch}/${r.deltas}; mean Jaccard ${num3(r.meanJaccard)}`,
        );
        for (const [tag, c] of Object.entries(r.perTag).sort()) out(`  ${tag.padEnd(34)} F1 ${num3(c.f1)} (tp ${c.tp}, fp ${c.fp}, fn ${c.fn})`);
        for (const e of r.errors) out(`  error on delta ${e.id}: ${e.error}`);
        out(usageLine(llm));
        await writeJson(o.json, r);
        return;
      }
      const { versions, deltas } = await deltasFrom(file, o);
      const llm = await requireLlm(o);
      const result = [];
      for (const d of deltas) {
        out(`# ${d.from} → ${d.to}`);
        try {
          const cats = await categoriseDelta(llm, d, versions[d.index].text);
          result.push({ delta: d.index, from: d.from, to: d.to, sentences: cats });
          for (const c of cats) out(`+ ${c.sentence}  [${c.categories.join(', ') || 'uncategorised'}]`);
        } catch (err) {
          // an infrastructure error on one delta is reported and kept apart; the others go on
          result.push({ delta: d.index, from: d.from, to: d.to, error: (err as Error).message });
          out(`error: ${(err as Error).message}`);
          process.exitCode = ExitCode.INTERNAL;
        }
      }
      out(usageLine(llm));
      await writeJson(o.json, result);
    });

  const synthesize = spade
    .command('synthesize')
    .description('candidate assertions from each prompt delta: criteria, then assertions (LLM)')
    .argument('[versions]', 'JSON/YAML list of prompt versions')
    .option('--git <file>', 'use the git history of this prompt file')
    .option(...INITIAL)
    .requiredOption('--out <file>', 'write the candidates here (JSON)')
    .option('--subsumptions', 'also ask the LLM for subsumption pairs among the candidates');
  llmOptions(synthesize).action(async (file: string | undefined, o: LlmFlags & { git?: string; initial?: boolean; out: string; subsumptions?: boolean }) => {
    const { versions, deltas } = await deltasFrom(file, o);
    // Nothing added or removed anywhere: no LLM call could find a criterion, so none is made.
    if (!deltas.some((d) => d.added.length || d.deleted.length)) {
      const what = deltas.length ? `${deltas.length} delta${deltas.length === 1 ? '' : 's'}, none adding or removing a sentence` : 'no delta';
      throw new UsageError(
        `${file ?? o.git}: expected a prompt delta that adds or removes a sentence, found ${what} (${versions.length} version${versions.length === 1 ? '' : 's'}${o.initial === false ? ', --no-initial' : ''}); ` +
          (o.initial === false ? "leave out --no-initial to synthesize from the first version's sentences" : 'give the prompt history with its changes'),
        { file: file ?? o.git },
      );
    }
    const llm = await requireLlm(o);
    const sandbox = createSandbox();
    try {
      const r = await synthesizeCandidates(
        llm,
        deltas,
        versions.map((v) => v.text),
        { sandbox },
      );
      let subsumes;
      if (o.subsumptions) {
        try {
          subsumes = await proposeSubsumptions(llm, r.candidates);
        } catch (err) {
          r.errors.push({ step: 'subsumptions', error: (err as Error).message });
        }
      }
      await writeJson(o.out, { ...r, ...(subsumes ? { subsumes } : {}) });
      out(
        `${r.criteria.length} criteria, ${r.candidates.length} candidates, ${r.rejected.length} rejected${subsumes ? `, ${subsumes.length} subsumption pairs` : ''} → ${o.out}`,
      );
      for (const x of r.rejected) out(`  rejected ${x.name}: ${x.reason}`);
      for (const e of r.errors) out(`  error (${e.step}${e.delta !== undefined ? `, delta ${e.delta}` : ''}): ${e.error}`);
      const why = whyNoCandidates(r, deltas);
      if (why) out(why);
      out(usageLine(llm));
      // Failed calls first (3); else a synthesis that gave nothing to evaluate is a result that failed (1).
      if (r.errors.length) process.exitCode = ExitCode.INTERNAL;
      else if (why) process.exitCode = ExitCode.VERDICT_FAILED;
    } finally {
      sandbox.dispose();
    }
  });

  spade
    .command('evaluate')
    .description('run candidates over labelled examples → assertion × example matrix (errors kept apart)')
    .requiredOption('--candidates <file>', 'candidates (from synthesize)')
    .option('--examples <file>', 'labelled examples: [{output, label: good|bad, input?, id?}] (JSON, JSONL, YAML)')
    .option(...RUN_FLAG)
    .option(...RULE_FLAG)
    .option(STORE_FLAG, STORE_HELP)
    .requiredOption('--out <file>', 'write the matrix here (JSON)')
    .option(...JUDGE_FILE)
    .option('--judge-model <name>', 'or an OpenAI-compatible model answering llm assertions (key from OPENAI_API_KEY)')
    .option('--judge-base-url <url>', 'endpoint of that model (else OPENAI_BASE_URL)')
    .option('--js-timeout-ms <ms>', 'time limit of one JavaScript assertion on one example', '1000')
    .action(async (o: LabelFlags & EvalFlags & { candidates: string; out: string; jsTimeoutMs: string }) => {
      const timeoutMs = positiveInt('--js-timeout-ms', o.jsTimeoutMs);
      oneJudge(o);
      const judge = await evaluationJudge(o);
      const candidates = await readCandidates(o.candidates);
      const labelled = await labelledExamples(o);
      if (!labelled) throw new UsageError("expected --examples <file> or --run <run> (people's grades as the labels), found neither", { path: '--examples' });
      for (const line of labelled.notes) out(line);
      const m = await evaluateOn(candidates, labelled, judge, timeoutMs);
      await writeJson(o.out, matrixToJson(m));
      const errors = Object.keys(m.errors ?? {}).length;
      out(
        `${candidates.length} candidates × ${labelled.examples.length} examples → ${o.out}${errors ? ` (${errors} error cells, not counted as failures)` : ''}`,
      );
      for (const line of formatErrors(m)) out(line);
    });

  spade
    .command('select')
    .description('choose a minimal set of assertions: base | cov | sub (HiGHS), or roots of the subsumption DAG')
    .option('--matrix <file>', 'matrix from evaluate, or a SPADE benchmark pipeline file')
    .option('--alpha <a>', 'minimum coverage of bad examples', '0.6')
    .option('--tau <t>', 'maximum false failure rate on good examples', '0.25')
    .option('--method <m>', 'base | cov | sub | roots', 'cov')
    .option('--objective <o>', 'sub only: paper (|S| + not subsumed) | code (not subsumed, as the authors ran it)', 'paper')
    .option('--subsumes <file>', 'subsumption pairs [{subsumer, subsumed}] (else those of the matrix or candidates file)')
    .option('--prune', "prune subsumption pairs by the paper's heuristics first")
    .option('--labels <variant>', 'benchmark files: optimizer | csv labels', 'optimizer')
    .option('--candidates <file>', 'candidate definitions (needed for --run, --export and for roots without a matrix)')
    .option('--examples <file>', 'labelled examples, replayed by the exported config as a self-check')
    .option(RUN_FLAG[0], `${RUN_FLAG[1]}; the candidates are evaluated on them here, in place of --matrix`)
    .option(...RULE_FLAG)
    .option(STORE_FLAG, STORE_HELP)
    .option('--js-timeout-ms <ms>', 'with --run: time limit of one JavaScript assertion on one example', '1000')
    .option('--agreement', 'print how well each assertion agrees with the labels (always with grades as the labels)')
    .option('--export <file>', 'write the selected assertions as a config for assay run (YAML)')
    .option('--min-success <x>', 'minSuccess of exported validators', '0.9')
    .option(...JUDGE_FILE)
    .option('--judge-model <name>', 'or an OpenAI model judging exported llm assertions')
    .option('--judge-base-url <url>', 'endpoint written into the exported judge config (default: OPENAI_BASE_URL, if set)')
    .option('--json <file>', 'also write the result as JSON')
    .action(async (o: Record<string, string | boolean | undefined>) => {
      const method = oneOfFlag('--method', String(o.method), ['base', 'cov', 'sub', 'roots'])!;
      const objective = oneOfFlag('--objective', String(o.objective), ['paper', 'code'])!;
      const labels = oneOfFlag('--labels', String(o.labels), ['optimizer', 'csv'])!;
      const alpha = unit('--alpha', String(o.alpha));
      const tau = unit('--tau', String(o.tau));
      const flags = o as LabelFlags & EvalFlags;
      if (flags.run !== undefined) {
        if (o.matrix)
          throw new UsageError(
            `expected --matrix or --run, found both: with --run the candidates are evaluated on the graded outputs here (to select on a matrix written by evaluate --run, leave out --run)`,
            { path: '--run' },
          );
        if (method === 'roots') throw new UsageError('--method roots uses no labelled examples: leave out --run', { path: '--run' });
        if (!o.candidates)
          throw new UsageError('--run: expected --candidates <file>, the assertions to check against the grades, found none', { path: '--run' });
      }
      const candidates = o.candidates ? await readCandidates(String(o.candidates)) : undefined;
      const labelled = await labelledExamples(flags);
      let loaded = o.matrix ? await readMatrix(String(o.matrix), labels) : undefined;
      if (labelled?.graded) {
        oneJudge(flags);
        const timeoutMs = positiveInt('--js-timeout-ms', String(o.jsTimeoutMs));
        for (const line of labelled.notes) out(line);
        const m = await evaluateOn(candidates!, labelled, await evaluationJudge(flags), timeoutMs);
        const errors = Object.keys(m.errors ?? {}).length;
        out(
          `${candidates!.length} candidates evaluated on ${labelled.examples.length} graded outputs${errors ? ` (${errors} error cells, not counted as failures)` : ''}`,
        );
        for (const line of formatErrors(m)) out(line);
        loaded = { matrix: m };
      }
      let pairs = o.subsumes ? await readSubsumptions(String(o.subsumes)) : loaded?.subsumes;
      if (!pairs && o.candidates) pairs = ((await readData(String(o.candidates))) as { subsumes?: typeof pairs })?.subsumes;
      pairs ??= [];
      if (o.prune) {
        const r = pruneSubsumptions(pairs, loaded?.matrix, { tau });
        out(
          `subsumption pairs: ${pairs.length} → ${r.kept.length} (refuted by a counterexample ${r.refuted.length}, skipped by FFR ${r.skipped.filter((s) => s.reason === 'ffr').length}, implied by transitivity ${r.implied.length})`,
        );
        pairs = r.kept;
      }
      if (method === 'roots') {
        const ids = loaded?.matrix.assertions ?? candidates?.map((c) => c.id);
        if (!ids) throw new UsageError('--method roots: expected --matrix or --candidates for the assertion names, found neither');
        const r = subsumptionRoots(ids, pairs);
        out(`roots of the subsumption DAG: ${r.roots.length} of ${ids.length}\n${r.roots.map((x) => `  ${x}`).join('\n')}`);
        await writeJson(typeof o.json === 'string' ? o.json : undefined, r);
        return;
      }
      if (!loaded) throw new UsageError(`--method ${method}: expected --matrix <file>, or --run <run> with --candidates, found neither`);
      if (!loaded.matrix.examples.length) {
        throw new UsageError(`${o.matrix}: the matrix has no labelled examples, so coverage and FFR are undefined; use --method roots with subsumption pairs`, {
          file: String(o.matrix),
        });
      }
      if (o.export && !candidates) throw new UsageError('--export: expected --candidates <file> with the assertion definitions, found none');
      oneJudge({ judge: o.judge as string | undefined, judgeModel: o.judgeModel as string | undefined, judgeBaseUrl: o.judgeBaseUrl as string | undefined });
      // Checked as assay run will check it; the key is only needed where the config runs.
      let judgeProvider: Record<string, unknown> | undefined;
      if (typeof o.judge === 'string') {
        judgeProvider = (await readProviderFile(o.judge, '--judge')) as Record<string, unknown>;
        parseJudgeConfig(judgeProvider, ['--judge'], { file: o.judge });
      }
      const r = await select(loaded.matrix, { method: method as Method, objective: objective as SubObjective, alpha, tau, subsumes: pairs });
      for (const line of formatSelection(r, loaded.matrix, { alpha, tau })) out(line);
      if (r.status === 'infeasible') process.exitCode = 1;
      const agreement = assertionAgreement(loaded.matrix);
      const set = r.status === 'ok' ? setAgreement(loaded.matrix, r.selected) : undefined;
      const source = loaded.matrix.labels;
      if (source || o.agreement) {
        const heading = source
          ? `agreement with people's grades of run ${source.run}${source.rule ? ` (rule ${source.rule})` : ''} (PASS = good; TPR = 1 − FFR, TNR = coverage, over non-error cells):`
          : 'agreement with the labels (PASS = good; TPR = 1 − FFR, TNR = coverage, over non-error cells):';
        for (const line of formatAgreement(agreement, set, r.selected, heading)) out(line);
      }
      await writeJson(typeof o.json === 'string' ? o.json : undefined, {
        ...r,
        ...(source ? { labels: source } : {}),
        agreement: { assertions: agreement, set: set ?? null },
      });
      if (o.export && r.status !== 'ok') out(`nothing selected: no config written to ${o.export}`);
      if (o.export && r.status === 'ok' && candidates) {
        const examples = labelled?.examples;
        const minSuccess = unit('--min-success', String(o.minSuccess));
        // assay run's judge config needs a key or a baseURL: a local endpoint used here is written in.
        const judgeBaseUrl = o.judgeBaseUrl ? String(o.judgeBaseUrl) : process.env.OPENAI_BASE_URL;
        // The self-check's recorded outputs go beside the config: selected.yaml → selected.replay.jsonl.
        const exportFile = String(o.export);
        const replayName = `${basename(exportFile).replace(/\.(ya?ml|json)$/i, '')}.replay.jsonl`;
        let exported: ReturnType<typeof selectionToConfig>;
        try {
          exported = selectionToConfig(r, candidates, loaded.matrix, {
            minSuccess,
            examples,
            replayFile: replayName,
            judge: judgeProvider
              ? { provider: judgeProvider }
              : o.judgeModel
                ? { model: String(o.judgeModel), ...(judgeBaseUrl ? { baseURL: judgeBaseUrl } : {}) }
                : undefined,
          });
        } catch (err) {
          // missing judge model, examples or a candidate definition: all problems with what was given
          throw new UsageError(`--export: ${(err as Error).message} (see --judge, --judge-model, --examples, --candidates)`);
        }
        if (exported.replay) {
          const replayPath = join(dirname(exportFile), exported.replay.file);
          await writeFile(replayPath, exported.replay.jsonl);
          out(`self-check: ${exported.replay.jsonl.split('\n').length - 1} labelled outputs, each with its own input → ${replayPath}`);
        }
        await writeFile(exportFile, exported.yaml);
        out(`config for assay run → ${exportFile}`);
      }
    });
}

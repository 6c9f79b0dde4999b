import type { Command } from 'commander';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { assayCommandLine } from '../invocation.js';

/** The starter experiment: runs as written (built-in simulated system), and shows each kind of validator. */
export const STARTER_CONFIG = `# assay experiment: run it with  assay run assay.yaml
# Every input is sent to the system \`samples\` times; every output is checked by every validator.
name: my-first-experiment

# The system under test. This one is a built-in seeded simulator (no API key, no network) so the file runs
# as it is. To test a real model, replace it with, for example:
#   system:
#     openai:
#       model: gpt-4o-mini            # any OpenAI-compatible endpoint: set baseURL for Ollama, vLLM, llama.cpp
#       apiKeyEnv: OPENAI_API_KEY
#       temperature: 0.7
#       system: You are a friendly support assistant. Answer in at most three sentences.
system:
  simulated:
    seed: 1
    latencyMs: 5
    outputs:
      - { text: "Hello! Thanks for reaching out. How can I help you today?", weight: 8 }
      - { text: "Hi there. I can't say much, but I'm here, aren't I? Let's see what we've got.", weight: 1 }
      - { text: "Greetings, valued customer. Your request has been received and will be processed in due course, after which we shall respond.", weight: 1 }

# Inputs: a list of prompts (or objects), or { file: inputs.jsonl }.
inputs:
  - Greet a new customer.
  - Say hello to someone who is upset.
  - Welcome a returning customer.

samples: 40              # M: outputs per input; rates come with confidence intervals
interval: clopper-pearson  # clopper-pearson (default; holds its level at every rate) | wilson | wald (the paper's; verdict: point only)
confidence: 0.95         # level of the intervals (default 0.95)
verdict: confident       # confident (default): the interval must clear minSuccess, else inconclusive (more samples decide it);
                         # point: the paper's rate >= minSuccess, marked "(point)" in reports
aggregate: mean          # mean (default) | weighted | min: how validator rates combine into the overall figure

validators:
  # A JavaScript arrow function (run in a sandbox): (output) => boolean, or (output, input) => boolean.
  - name: few_contractions
    message: Output contains too many contractions
    predicate: "o => (o.match(/'/g) ?? []).length <= 3"
    minSuccess: 0.7
  # Built-in checks: contains, not-contains, regex, max-count, words, sentences, json, json-schema, tool-called, tool-not-called, tool-order, max-steps, tool-args-valid, no-tool-errors.
  # (The tool-… and max-steps checks read an agent's steps; the others its final answer. See docs/config.md.)
  - name: short_enough
    message: Output is longer than 25 words
    check: { type: words, max: 25 }
    minSuccess: 0.8
  - name: friendly_opening
    message: Output does not open with a greeting
    check: { type: regex, pattern: "^(hello|hi|welcome)", flags: i }
    minSuccess: 0.7
`;

/** `assay init`: write a starter assay.yaml that runs as it is, and say what to do next. */
export function register(program: Command): void {
  program
    .command('init')
    .description('Write a starter assay.yaml that runs as it is (simulated system), with every kind of validator')
    .option('--file <path>', 'where to write it', 'assay.yaml')
    .option('--force', 'overwrite an existing file')
    .action((flags: { file: string; force?: boolean }) => {
      const target = resolve(flags.file);
      if (existsSync(target) && !flags.force) {
        throw new UsageError(`--file: ${flags.file} already exists; expected a new file (use --force to overwrite it)`, { file: flags.file, path: '--file' });
      }
      try {
        writeFileSync(target, STARTER_CONFIG);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why =
          code === 'ENOENT'
            ? `its folder ${dirname(target)} does not exist`
            : code === 'EISDIR'
              ? 'it is a folder'
              : `it cannot be written (${code ?? (err as Error).message})`;
        throw new UsageError(`--file: expected a writable file path, found ${JSON.stringify(flags.file)}, but ${why}`, { file: flags.file, path: '--file' });
      }
      // The command as the user can type it here: `npx assay` in a project install (cli/invocation.ts decides).
      const pad = (cmd: string, width: number) => cmd.padEnd(Math.max(width, cmd.length + 2));
      process.stdout.write(
        [
          `Wrote ${flags.file}: a starter experiment against a built-in simulated system (no API key needed).`,
          '',
          'Next:',
          `  ${pad(assayCommandLine(`run ${flags.file}`), 46)}run it: a summary table, exit code 0 when every validator passes`,
          `  ${pad(assayCommandLine(`run ${flags.file} --markdown summary.md`), 46)}also write a report (--json, --junit, --html too)`,
          `  ${pad(assayCommandLine('runs'), 46)}list stored runs (.assay/assay.db)`,
          '',
          `Then edit ${flags.file}: point \`system\` at your model (see the comment there), add your inputs, and`,
          'write validators for the rules your outputs must follow, each with the success rate it must reach.',
          '',
        ].join('\n'),
      );
      process.exitCode = 0;
    });
}

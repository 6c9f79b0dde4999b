import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as z from 'zod';
import { loadExperiment } from '../config/load.js';
import { experimentConfigSchema } from '../config/schema.js';
import { summarize } from '../core/summarize.js';
import { ReliabilityTensor } from '../core/tensor.js';
import { summaryOptionsOf } from '../core/summary-options.js';
import { parseSystemConfig } from '../providers/factory.js';
import { CHECK_TYPES } from '../validators/builtin.js';
import { STARTER_CONFIG } from './init.js';
import { captureCli } from './testing/capture.js';
import { cliCommand, runCliProcess } from './testing/process.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => captureCli(args);

describe('assay init', () => {
  it('writes a starter config that loads and runs as it is (exit 0), and explains the next steps', async () => {
    const file = join(dir, 'assay.yaml');
    const r = await cli('init', '--file', file);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`assay run ${file}`);
    expect(readFileSync(file, 'utf8')).toBe(STARTER_CONFIG);
    const x = await loadExperiment(file);
    expect(x.validators.map((v) => v.name)).toEqual(['few_contractions', 'short_enough', 'friendly_opening']);
    x.dispose();
    const run = await cli('run', file, '--store', join(dir, 'a.db'));
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/PASS: 3 validator/);
  });

  it('says npx assay in its next steps when started through npx (issue 26, item 7)', async () => {
    const file = join(dir, 'npx.yaml');
    const r = await runCliProcess(['init', '--file', file], { env: { ...process.env, npm_command: 'exec' } });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`  npx assay run ${file}`);
    expect(r.out).toContain('  npx assay runs');
    expect(r.out).not.toMatch(/^ {2}assay /m);
  });

  it('refuses to overwrite an existing file unless --force', async () => {
    const file = join(dir, 'mine.yaml');
    writeFileSync(file, 'name: mine\n');
    const r = await cli('init', '--file', file);
    expect(r.code).toBe(2);
    expect(r.err).toContain('already exists');
    expect(readFileSync(file, 'utf8')).toBe('name: mine\n');
    expect((await cli('init', '--file', file, '--force')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(STARTER_CONFIG);
  });

  it('a path in a missing folder (or a folder) is exit 2 naming the path, not a stack trace', async () => {
    const missing = join(dir, 'missing', 'dir', 'assay.yaml');
    const r = await cli('init', '--file', missing);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `assay: --file: expected a writable file path, found ${JSON.stringify(missing)}, but its folder ${join(dir, 'missing', 'dir')} does not exist\n`,
    );
    const folder = await cli('init', '--file', dir, '--force');
    expect(folder.code).toBe(2);
    expect(folder.err).toMatch(/but it is a folder/);
  });
});

describe('the starter config says only what is true', () => {
  const lines = STARTER_CONFIG.split('\n');
  const shape = experimentConfigSchema.shape as Record<string, z.ZodType>;

  it('every "X (default…)" comment names the default the schema applies, and "a | b | c" lists exactly its choices', () => {
    // The defaults a run applies: the schema's, and where it leaves a key unset (verdict), the summary's.
    const parsed = experimentConfigSchema.parse({ system: { simulated: {} }, inputs: ['x'] });
    const applied = summarize(
      new ReliabilityTensor(1, 1, 1),
      [{ name: 'v', message: 'm', minSuccess: 0.5, weight: 1, kind: 'validator' }],
      summaryOptionsOf(parsed),
    ).options;
    const defaults: Record<string, unknown> = {
      ...parsed,
      interval: applied.interval,
      confidence: applied.level,
      verdict: applied.verdict,
      aggregate: applied.aggregate,
    };
    let checked = 0;
    for (const line of lines) {
      const m = /^([a-zA-Z]+):\s*(\S+)\s+#\s*(.*)$/.exec(line);
      if (!m) continue;
      const [, key, , comment] = m;
      const named = /\(default ([\w.-]+)\)/.exec(comment)?.[1] ?? /([\w.-]+) \(default\b/.exec(comment)?.[1];
      if (named !== undefined) {
        expect(String(defaults[key]), `${key}: ${comment}`).toBe(named);
        checked++;
      }
      const inner = shape[key] instanceof z.ZodDefault || shape[key] instanceof z.ZodOptional ? (shape[key] as z.ZodDefault).unwrap() : shape[key];
      if (inner instanceof z.ZodEnum && comment.includes('|')) {
        const listed = comment.split('|').map((part) => /[\w.-]+/.exec(part.trim())![0]);
        expect(new Set(listed), `${key}: ${comment}`).toEqual(new Set(inner.options));
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3); // interval, confidence, aggregate
  });

  it('the commented-out openai system is a valid system', () => {
    const start = lines.findIndex((l) => l.trim() === '#   system:');
    const block: string[] = [];
    for (const l of lines.slice(start + 1)) {
      if (!l.startsWith('#     ')) break;
      block.push(l.slice(6).replace(/\s+#.*$/, ''));
    }
    expect(block[0]).toBe('openai:');
    expect(() => parseSystemConfig(parse(block.join('\n')))).not.toThrow();
  });

  it('the list of built-in checks is the list there is', () => {
    const listed = /# Built-in checks: (.*)\./.exec(STARTER_CONFIG)![1].split(', ');
    expect(listed).toEqual([...CHECK_TYPES]);
  });

  it('inputs can be { file: … }, as it says', async () => {
    writeFileSync(join(dir, 'inputs.jsonl'), '"a"\n"b"\n');
    const file = join(dir, 'from-file.yaml');
    writeFileSync(file, STARTER_CONFIG.replace(/^inputs:\n( {2}- .*\n)+/m, 'inputs: { file: inputs.jsonl }\n'));
    const x = await loadExperiment(file);
    expect(x.inputs).toEqual(['a', 'b']);
    x.dispose();
  });
});

describe('the bin', () => {
  it('runs when started through a symlink of any name (npm bin links, npx)', () => {
    // node_modules/.bin/assay is a symlink to the entry file; main.ts compares real paths.
    const link = join(dir, 'some-bin-name');
    const command = cliCommand();
    symlinkSync(command[command.length - 1], link);
    const out = execFileSync(process.execPath, [...command.slice(0, -1), link, '--version'], { encoding: 'utf8' });
    expect(out.trim()).toBe('0.1.0');
  });
});

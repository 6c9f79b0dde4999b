import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliCommand } from '../../cli/testing/process.js';

// A user without the optional peer: `assay analyze --nli-model` in a process where Node cannot resolve
// @huggingface/transformers (a resolve hook fails it as Node fails a package that is not installed).
const dir = mkdtempSync(join(tmpdir(), 'assay-nli-missing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOK = `export async function resolve(specifier, context, next) {
  if (specifier === '@huggingface/transformers') {
    const e = new Error("Cannot find package '@huggingface/transformers' imported from " + context.parentURL);
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return next(specifier, context);
}`;

describe('--nli-model without @huggingface/transformers installed', () => {
  it('exits 2 naming the package and the command that installs it', () => {
    writeFileSync(join(dir, 'hook.mjs'), HOOK);
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`,
    );
    const model = join(dir, 'model');
    mkdirSync(join(model, 'onnx'), { recursive: true });
    for (const f of ['tokenizer.json', join('onnx', 'model.onnx')]) writeFileSync(join(model, f), '');
    writeFileSync(join(model, 'config.json'), JSON.stringify({ id2label: { 0: 'entailment', 1: 'neutral', 2: 'contradiction' } }));
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'a.md'), 'The X200 router supports 5G.\n');
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [...cliCommand({ nodeArgs: ['--import', pathToFileURL(join(dir, 'register.mjs')).href] }), ...args], {
        encoding: 'utf8',
      });
    expect(cli('kb', 'ingest', join(dir, 'docs'), '--kb', join(dir, 'kb')).status).toBe(0);
    const r = cli('analyze', '--kb', join(dir, 'kb'), '--query', 'q', '--answer', 'The X200 router supports 5G.', '--nli-model', model);
    expect(r.stderr).toBe(
      'assay: the NLI claim checker needs the optional package @huggingface/transformers, which is not installed: install it with npm install @huggingface/transformers; or leave out the NLI model\n',
    );
    expect(r.status).toBe(2);
  });
});

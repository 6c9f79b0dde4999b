import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from '../cli/testing/capture.js';
import { useConfigDir } from '../cli/testing/config-dir.js';

// docs/providers.md's replay examples, run as written (issue 12 item 6): the log, the config that validates it as
// it is, and the config that lists its inputs. A replay that ignores recordings says so.

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'providers.md'), 'utf8');
const section = doc.slice(doc.indexOf('## `replay`'), doc.indexOf('## `simulated`'));
const blocks = (lang: string) => [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
const tmp = useConfigDir('assay-replay-docs-');

function setUp(): { yaml: string[] } {
  const [log] = blocks('jsonl');
  mkdirSync(join(tmp.dir(), 'logs'), { recursive: true });
  writeFileSync(join(tmp.dir(), 'logs', 'production.jsonl'), log);
  return { yaml: blocks('yaml') };
}

const run = (file: string) => captureCli(['run', file, '--store', join(tmp.dir(), 'assay.db'), '--no-progress']);

describe("docs/providers.md's replay examples", () => {
  it('validates the log as it is: 2 inputs × 2 samples, one apology failed, one missing recording an error; no warning', async () => {
    const { yaml } = setUp();
    expect(yaml).toHaveLength(2);
    const r = await run(tmp.config('as-is.yaml', yaml[0]));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/no_apology +66\.7% .* ERROR +2 +1 +1/); // 1 error of 4 cells: above maxErrorShare
    expect(r.out).toMatch(/error ×1: .*no recorded output for input #2 \("Say hello\."\): the file has only 1 recording of it/);
    expect(r.err).not.toContain('warning');
  });

  it('with inputs listed, recordings of other inputs are reported as ignored', async () => {
    const { yaml } = setUp();
    const r = await run(tmp.config('listed.yaml', yaml[1]));
    // Two recordings, one an apology, cannot show 0.5 either way at 95%: inconclusive, as the page says.
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/no_apology +50\.0% .* INCONCLUSIVE +1 +1 +0/);
    expect(r.err).toMatch(
      /assay: warning: .*listed\.yaml: system\.replay: 1 recording of inputs not among the experiment's inputs is ignored \(the first, line 3: "Say hello\."\)/,
    );
  });

  it('explicit inputs without samples read one recording each, and the warning says how many are left and how to use them', async () => {
    const { yaml } = setUp();
    const config = yaml[0].replace('validators:', 'inputs: ["Describe the weather.", "Say hello."]\nvalidators:');
    const r = await run(tmp.config('no-samples.yaml', config));
    expect(r.out).toMatch(/no_apology .* 2 +0 +0/); // only the first recording of each input
    expect(r.err).toMatch(/system\.replay: samples is 1, so 1 recording beyond the first 1 of an input is ignored; set samples: 2 to validate them all/);
  });
});

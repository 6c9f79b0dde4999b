import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AssayError, ExitCode, UsageError } from '../errors.js';
import { QuickJSSandbox } from '../sandbox/quickjs.js';
import { evaluateValidator } from '../validators/evaluate.js';
import { loadExperiment } from './load.js';
import { PROMPTLY_MS } from '../testing/time.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

async function usage(path: string, overrides = {}): Promise<UsageError> {
  const err = await loadExperiment(path, overrides).then(
    (e) => {
      e.dispose();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  return err as UsageError;
}

const GOOD = `name: t
system: { simulated: { outputs: [{ text: "hi" }] } }
inputs: ["a", "b"]
samples: 3
validators:
  - name: short
    message: too long
    predicate: "o => o.length < 10"
    minSuccess: 0.9
`;

const SAMPLE_OK = 'It is a fine day and I am glad to see it.';
const SAMPLE_BAD = "It's fine, isn't it? Don't worry, I can't complain.";

describe('loadExperiment: the issue example', () => {
  it('loads examples/contractions.yaml exactly as written and its validator gives pass, fail and error', async () => {
    const e = await loadExperiment('examples/contractions.yaml');
    try {
      expect(e).toMatchObject({
        name: 'contractions',
        samples: 50,
        verdict: 'confident',
        interval: 'clopper-pearson',
        maxErrorShare: 0.05,
        stopping: 'fixed',
        confidence: 0.95,
        aggregate: 'mean',
        concurrency: 8,
        timeoutMs: 60_000,
        inputs: ['Describe the weather.', 'Say hello.', 'Greet a customer.', 'Summarise the news.'],
        systemConfig: { simulated: { seed: 42, latencyMs: 5 } },
        verifierConfigs: [],
      });
      expect(e.configPath).toMatch(/examples[\\/]contractions\.yaml$/);
      expect(e.validators).toHaveLength(1);
      const v = e.validators[0];
      expect(v).toMatchObject({ name: 'contraction_validator', message: 'Output contains too many contractions', minSuccess: 0.95 });
      expect(v.source).toBe("o => (o.match(/'/g) ?? []).length <= 3");
      expect(await evaluateValidator(v, SAMPLE_OK, 'Say hello.')).toEqual({ outcome: 'pass' });
      expect(await evaluateValidator(v, SAMPLE_BAD, 'Say hello.')).toEqual({ outcome: 'fail' });
      // An output that is not a string makes the predicate throw: error, not fail.
      expect(await evaluateValidator(v, null as unknown as string, 'Say hello.')).toMatchObject({ outcome: 'error' });
      expect(JSON.parse(JSON.stringify(e.serialisable))).toEqual(e.serialisable);
      expect(e.serialisable).toMatchObject({
        name: 'contractions',
        validators: [{ name: 'contraction_validator', source: v.source, weight: 1, kind: 'validator' }],
      });
    } finally {
      e.dispose();
    }
  });

  it('loads examples/assay.config.ts with real predicate functions and the same settings', async () => {
    const e = await loadExperiment('examples/assay.config.ts');
    try {
      const y = await loadExperiment('examples/contractions.yaml');
      const strip = (x: typeof e) => ({ ...x, configPath: '', file: '', locate: null, validators: [], serialisable: null, dispose: null });
      expect(strip(e)).toEqual(strip(y));
      y.dispose();
      const v = e.validators[0];
      expect(typeof v.predicate).toBe('function');
      expect(v.source).toContain('match');
      expect(await v.predicate(SAMPLE_OK, 'x')).toBe(true);
      expect(await v.predicate(SAMPLE_BAD, 'x')).toBe(false);
    } finally {
      e.dispose();
    }
  });

  it('applies command-line overrides and checks them', async () => {
    const e = await loadExperiment('examples/contractions.yaml', { samples: 7, concurrency: 2 });
    expect([e.samples, e.concurrency]).toEqual([7, 2]);
    e.dispose();
    // The library names the override by its key (where.key); the CLI shows its flag (cli/flag-names.ts).
    const samples = await usage('examples/contractions.yaml', { samples: 0 });
    expect(samples.message).toBe('overrides.samples: expected an integer from 1 to 1000000, found 0');
    expect(samples.where).toMatchObject({ key: 'overrides.samples' });
    expect((await usage('examples/contractions.yaml', { timeoutMs: 0 })).message).toMatch(/^overrides.timeoutMs: expected a whole number/);
  });
});

describe('loadExperiment: every problem names the field, what was expected and what was found', () => {
  it('a minSuccess that is not a number', async () => {
    const p = write('x.yaml', GOOD.replace('minSuccess: 0.9', 'minSuccess: high'));
    const err = await usage(p);
    expect(err.message).toBe(`${p}: validators[0].minSuccess: expected a number between 0 and 1, found "high" (line 9)`);
    expect(err.where).toMatchObject({ path: 'validators[0].minSuccess', line: 9 });
  });

  it('a typo in a key (sample:) is an unknown key with a suggestion', async () => {
    const p = write('typo.yaml', GOOD.replace('samples: 3', 'sample: 3'));
    expect((await usage(p)).message).toMatch(/typo\.yaml: sample: unknown key \(expected one of: .*samples.*\); did you mean "samples"\? \(line 4\)/);
    const q = write('typo2.yaml', GOOD.replace('minSuccess: 0.9', 'minSucess: 0.9'));
    expect((await usage(q)).message).toMatch(/validators\[0\]\.minSucess: unknown key .*did you mean "minSuccess"/);
  });

  it('YAML syntax errors give line and column', async () => {
    const p = write('syntax.yaml', 'name: t\ninputs: ["a", "b"\nsamples: 3\n');
    expect((await usage(p)).message).toMatch(
      /syntax\.yaml:3:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a \]$/,
    );
    const d = write('dup.yaml', GOOD + 'samples: 4\n');
    expect((await usage(d)).message).toMatch(/dup\.yaml:10:1: invalid YAML: .*unique/i);
  });

  it('enums, ranges, missing keys and wrong types', async () => {
    const bad = write('enum.yaml', GOOD + 'aggregate: avg\nconfidence: 1\n');
    const msg = (await usage(bad)).message;
    expect(msg).toContain('aggregate: expected one of mean, weighted, min, found "avg"');
    expect(msg).toContain('confidence: expected a number strictly between 0 and 1, found 1');
    const nosys = write('nosys.yaml', GOOD.replace(/^system:.*$/m, ''));
    expect((await usage(nosys)).message).toContain('system: expected a system');
    const ins = write('ins.yaml', GOOD.replace('inputs: ["a", "b"]', 'inputs: ["a", 3]'));
    expect((await usage(ins)).message).toContain('inputs[1]: expected a string or an object, found 3');
    const empty = write('empty.yaml', GOOD.replace('inputs: ["a", "b"]', 'inputs: []'));
    expect((await usage(empty)).message).toContain('inputs: expected at least one input');
  });

  it('validators: neither or both of predicate and check, unknown check type, bad check options', async () => {
    const both = write('both.yaml', GOOD.replace('minSuccess: 0.9', 'minSuccess: 0.9\n    check: { type: json }'));
    expect((await usage(both)).message).toContain('validators[0]: expected either predicate or check, found both');
    const type = write('type.yaml', GOOD.replace('predicate: "o => o.length < 10"', 'check: { type: containz, value: x }'));
    expect((await usage(type)).message).toContain(
      'validators[0].check.type: expected one of contains, not-contains, regex, max-count, words, sentences, json, json-schema, tool-called, tool-not-called, tool-order, max-steps, tool-args-valid, no-tool-errors, grounded, found "containz"',
    );
    const re = write('re.yaml', GOOD.replace('predicate: "o => o.length < 10"', 'check: { type: regex, pattern: "(" }'));
    expect((await usage(re)).message).toMatch(/validators\[0\]\.check\.pattern: expected a valid regular expression, found "\("/);
    const opt = write('opt.yaml', GOOD.replace('predicate: "o => o.length < 10"', 'check: { type: words, max: 3, ignoreCase: true }'));
    expect((await usage(opt)).message).toMatch(/validators\[0\]\.check\.ignoreCase: unknown key \(expected one of: type, min, max\)/);
  });

  it('a predicate that does not compile is a usage error naming the validator', async () => {
    const p = write('pred.yaml', GOOD.replace('"o => o.length < 10"', '"o => o.length <"'));
    const err = await usage(p);
    expect(err.message).toMatch(
      /validators\[0\]\.predicate: expected a JavaScript function expression .*found "o => o.length <" \(validator "short" does not compile: SyntaxError/,
    );
    expect(err.message).toContain('(line 8)');
  });

  it('duplicate names and an experiment with nothing to check', async () => {
    const dup = write('dupname.yaml', GOOD + '  - name: short\n    check: { type: json }\n    minSuccess: 1\n');
    expect((await usage(dup)).message).toContain('validators[1].name: expected a unique name, found "short" (also used by validators[0])');
    const none = write('none.yaml', GOOD.slice(0, GOOD.indexOf('validators:')));
    expect((await usage(none)).message).toContain('validators: expected at least one validator (or verifier), found none');
  });

  it('unreadable or unsupported config files', async () => {
    expect((await usage(join(dir, 'missing.yaml'))).message).toContain('it does not exist');
    expect((await usage(write('c.toml', 'x = 1'))).message).toContain('expected a .yaml, .yml, .json');
    expect((await usage(write('list.yaml', '- 1\n- 2\n'))).message).toContain('expected a config object');
    expect((await usage(write('bad.json', '{\n  "name": "x",\n  oops\n}'))).message).toMatch(/bad\.json:3: expected valid JSON/);
  });
});

describe('loadExperiment: JSON configs, built-in checks and verifiers', () => {
  it('loads a JSON config with built-in checks and raw verifier configs', async () => {
    const p = write(
      'exp.json',
      JSON.stringify({
        system: { simulated: {} },
        inputs: [{ question: 'q1' }],
        validators: [
          { name: 'no_sorry', minSuccess: 0.9, check: { type: 'not-contains', value: ['sorry'], ignoreCase: true } },
          { name: 'json', minSuccess: 0.5, weight: 2, check: { type: 'json-schema', schema: { type: 'object', required: ['a'] } } },
        ],
        verifiers: [{ name: 'polite', minSuccess: 0.8, instructions: ['Is it polite?'], judge: { openai: { model: 'm' } } }],
        validatorTimeoutMs: 250,
      }),
    );
    const e = await loadExperiment(p);
    expect(e.name).toBe('exp');
    expect(e.samples).toBe(1);
    expect(e.validatorTimeoutMs).toBe(250);
    expect(e.inputs).toEqual([{ question: 'q1' }]);
    expect(e.verifierConfigs).toEqual([{ name: 'polite', minSuccess: 0.8, instructions: ['Is it polite?'], judge: { openai: { model: 'm' } } }]);
    expect(e.validators.map((v) => v.source)).toEqual([
      'does not contain "sorry" (ignoring case)',
      'parses as JSON matching the schema {"type":"object","required":["a"]}',
    ]);
    expect(await evaluateValidator(e.validators[0], 'SORRY', '')).toEqual({ outcome: 'fail' });
    expect(await evaluateValidator(e.validators[1], '{"a":1}', '')).toEqual({ outcome: 'pass' });
    expect(e.validators[1].weight).toBe(2);
    e.dispose();
  });

  it('a verifier without a judge names the field', async () => {
    const p = write('ver.yaml', GOOD + 'verifiers:\n  - { name: v, minSuccess: 0.5, instructions: "be kind" }\n');
    expect((await usage(p)).message).toContain('verifiers[0].judge: expected a provider object like system');
  });

  it('the experiment-wide validatorTimeoutMs limits sandboxed predicates', async () => {
    const p = write('loop.yaml', GOOD.replace('"o => o.length < 10"', '"o => { for (;;) {} }"') + 'validatorTimeoutMs: 50\n');
    const e = await loadExperiment(p);
    const t = Date.now();
    expect(await evaluateValidator(e.validators[0], 'x', 'a', { timeoutMs: e.validatorTimeoutMs })).toMatchObject({
      outcome: 'error',
      error: expect.stringMatching(/timed out after 50 ms/),
    });
    expect(Date.now() - t).toBeLessThan(PROMPTLY_MS);
    e.dispose();
  });
});

describe('loadExperiment: design bounds (the tensor is one Uint8Array)', () => {
  it('refuses samples above the bound, from the config or an override, naming samples and the bound', async () => {
    const huge = await usage(write('huge.yaml', GOOD.replace('samples: 3', 'samples: 1e12')));
    expect(huge.message).toMatch(/huge\.yaml: samples: expected an integer from 1 to 1000000, found 1000000000000 \(line 4\)/);
    const over = await usage(write('ok.yaml', GOOD), { samples: 2_000_000 });
    expect(over.message).toMatch(/samples: expected an integer from 1 to 1000000/);
  });

  it('refuses N×M×K above the tensor bound, naming inputs, samples and validators', async () => {
    const inputs = JSON.stringify(Array.from({ length: 200 }, (_, i) => `q${i}`));
    const err = await usage(write('wide.yaml', GOOD.replace('inputs: ["a", "b"]', `inputs: ${inputs}`).replace('samples: 3', 'samples: 1000000')));
    expect(err.message).toMatch(
      /wide\.yaml: samples: expected inputs × samples × \(validators \+ verifiers\) ≤ 100,000,000 tensor cells, found 200 inputs × 1000000 samples × 1 validators/,
    );
    // Just under the bound loads.
    const ok = await loadExperiment(write('fits.yaml', GOOD.replace('inputs: ["a", "b"]', `inputs: ${inputs}`).replace('samples: 3', 'samples: 500000')));
    expect(ok.samples).toBe(500_000);
    ok.dispose();
  });
});

describe('loadExperiment: a TypeScript config that does not compile', () => {
  it('names the esbuild error, its line and column', async () => {
    const err = await usage(write('broken.config.ts', 'const a = 1;\nexport default {{\n'));
    expect(err.message).toMatch(
      /broken\.config\.ts:2:16: expected a config module that loads, but it has a syntax error: Expected identifier but found "\{" \(line 2, column 16\)$/,
    );
    expect(err.where?.line).toBe(2);
  });
});

describe('loadExperiment: errors and stopping (issue 9)', () => {
  it('reads onError, maxErrorShare and expect per validator, maxErrorShare and stopping per run', async () => {
    const p = write(
      'seq.yaml',
      GOOD.replace('samples: 3', 'samples: 3\nstopping: sequential\nmaxErrorShare: 0.1').replace(
        '    minSuccess: 0.9\n',
        '    minSuccess: 0.9\n    onError: fail\n    maxErrorShare: 0.02\n    expect: 0.97\n',
      ),
    );
    const e = await loadExperiment(p);
    try {
      expect(e).toMatchObject({ stopping: 'sequential', verdict: 'confident', maxErrorShare: 0.1, interval: 'clopper-pearson' });
      expect(e.validators[0]).toMatchObject({ onError: 'fail', maxErrorShare: 0.02, expect: 0.97 });
      expect(e.serialisable).toMatchObject({
        stopping: 'sequential',
        verdict: 'confident',
        maxErrorShare: 0.1,
        validators: [{ onError: 'fail', maxErrorShare: 0.02, expect: 0.97 }],
      });
      // onError: fail reaches the sandboxed predicate: a throw fails the output.
      expect(await evaluateValidator(e.validators[0], 'x'.repeat(3), 'a')).toEqual({ outcome: 'pass' });
    } finally {
      e.dispose();
    }
    const o = await loadExperiment(write('fixed.yaml', GOOD), { stopping: 'sequential' });
    expect([o.stopping, o.verdict]).toEqual(['sequential', 'confident']);
    o.dispose();
  });

  it('names the field, the line and what was expected', async () => {
    const bad = await usage(write('onerror.yaml', GOOD.replace('    minSuccess: 0.9\n', '    minSuccess: 0.9\n    onError: ignore\n')));
    expect(bad.message).toMatch(
      /validators\[0\]\.onError: expected "error" \(a throw is an error outcome, the default\) or "fail" \(a throw means the output failed\), found "ignore"/,
    );
    expect(bad.message).toMatch(/line 10/);
    const share = await usage(write('share.yaml', GOOD.replace('samples: 3', 'samples: 3\nmaxErrorShare: 5')));
    expect(share.message).toMatch(/maxErrorShare: expected a number between 0 and 1/);
    const stop = await usage(write('stop.yaml', GOOD.replace('samples: 3', 'samples: 3\nstopping: early')));
    expect(stop.message).toMatch(/stopping: expected "fixed" \(run every sample, the default\) or "sequential" \(.*\), found "early" \(line 5\)/);
    const point = await usage(write('point.yaml', GOOD.replace('samples: 3', 'samples: 3\nstopping: sequential\nverdict: point')));
    expect(point.message).toMatch(/verdict: expected "confident" with stopping: sequential .* found "point" \(line 6\)/);
    const exp = await usage(write('expect.yaml', GOOD.replace('    minSuccess: 0.9\n', '    minSuccess: 0.9\n    expect: 1\n')));
    expect(exp.message).toMatch(/validators\[0\]\.expect: expected a number strictly between 0 and 1/);
  });
});

describe('loadExperiment: verdicts (issue 16)', () => {
  it('the verdict is confident by default; point on request; the decision parameters are stored with the run', async () => {
    const e = await loadExperiment(write('default.yaml', GOOD.replace('    minSuccess: 0.9\n', '    minSuccess: 0.9\n    expect: 0.97\n')));
    try {
      expect(e.verdict).toBe('confident');
      const decision = {
        confidence: 0.95,
        interval: 'clopper-pearson',
        verdict: 'confident',
        maxErrorShare: 0.05,
        stopping: 'fixed',
        estimand: 'inputs',
        rules: [{ name: 'short', minSuccess: 0.9, expect: 0.97 }],
      };
      expect(e.decision).toEqual(decision);
      expect(e.serialisable).toMatchObject({ verdict: 'confident', decision });
    } finally {
      e.dispose();
    }
    const p = await loadExperiment(write('point.yaml', GOOD.replace('samples: 3', 'samples: 3\nverdict: point')));
    expect([p.verdict, p.decision.verdict]).toEqual(['point', 'point']);
    p.dispose();
    const o = await loadExperiment(write('over.yaml', GOOD), { verdict: 'point', interval: 'wald' });
    expect(o.decision).toMatchObject({ verdict: 'point', interval: 'wald' });
    o.dispose();
  });

  it('refuses confident verdicts on Wald intervals, in the file or by an override, naming interval and saying why', async () => {
    const file = await usage(write('wald.yaml', GOOD.replace('samples: 3', 'samples: 3\ninterval: wald')));
    expect(file.message).toMatch(
      /^.*wald\.yaml: interval: expected clopper-pearson or wilson with verdict: confident \(the default\), found "wald": Wald's bound is degenerate at 0 and n .* \(line 5\)$/,
    );
    expect(file.where).toMatchObject({ path: 'interval', line: 5 });
    const explicit = await usage(write('wald2.yaml', GOOD.replace('samples: 3', 'samples: 3\ninterval: wald\nverdict: confident')));
    expect(explicit.message).toMatch(/interval: expected clopper-pearson or wilson with verdict: confident/);
    const override = await usage(write('ok.yaml', GOOD), { interval: 'wald', verdict: 'confident' });
    expect(override.message).toMatch(
      /^overrides\.interval: expected clopper-pearson or wilson with verdict: confident .*degenerate at 0 and n.*\(interval wald is accepted with verdict point\)$/,
    );
    expect(override.where).toMatchObject({ key: 'overrides.interval' });
    // The flag that made the pair is the one named: here --verdict, against the file's interval.
    const byVerdict = await usage(write('wald-file.yaml', GOOD.replace('samples: 3', 'samples: 3\ninterval: wald\nverdict: point')), { verdict: 'confident' });
    expect(byVerdict.message).toMatch(
      /^overrides\.verdict: expected point with the config's interval: wald, found "confident" \(Wald's bound is degenerate .*\); or override interval with clopper-pearson or wilson$/,
    );
    expect(byVerdict.where).toMatchObject({ key: 'overrides.verdict' });
    const seq = await usage(write('wald-seq.yaml', GOOD.replace('samples: 3', 'samples: 3\ninterval: wald\nstopping: sequential')));
    expect(seq.message).toMatch(/interval: expected clopper-pearson or wilson/);
    // Wald stays available for comparison, with point verdicts.
    const w = await loadExperiment(write('wald-point.yaml', GOOD.replace('samples: 3', 'samples: 3\ninterval: wald\nverdict: point')));
    expect([w.interval, w.verdict]).toEqual(['wald', 'point']);
    w.dispose();
  });
});

describe('loadExperiment: a sandbox that fails while the config loads', () => {
  it('is exit 3 in one line naming the file and the validator, not a config error (its worker dies at start: a 1 MB heap)', async () => {
    const sandbox = new QuickJSSandbox({ workerHeapMb: 1 });
    try {
      const err = await loadExperiment(write('crash.yaml', GOOD), {}, { sandbox }).then(
        (e) => (e.dispose(), undefined),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AssayError);
      expect(err).not.toBeInstanceOf(UsageError);
      const e = err as AssayError;
      expect(e.exitCode).toBe(ExitCode.INTERNAL);
      expect(e.message).toMatch(
        /^.*crash\.yaml: validator "\w+": the predicate sandbox failed: sandbox worker crashed: .*memory.* \(gave up after 3 fresh workers\)$/,
      );
      expect(e.message).not.toContain('\n');
    } finally {
      sandbox.dispose();
    }
  });
});

describe('loadExperiment: per-input floors (issue 19)', () => {
  const TWO = `${GOOD}verifiers:
  - name: polite
    instructions: Is it polite?
    minSuccess: 0.8
    maxErrorShare: 0.1
    judge: { openai: { model: m } }
`;
  it('a run default applies to every rule without its own; perInput: false opts out; stored in the decision', async () => {
    const e = await loadExperiment(write('floors.yaml', TWO.replace('samples: 3', 'samples: 3\nperInput: { minSuccess: 0.8 }')));
    try {
      expect(e.validators[0].perInput).toEqual({ minSuccess: 0.8 });
      expect(e.verifierConfigs[0].perInput).toEqual({ minSuccess: 0.8 });
      expect(e.decision.rules).toEqual([
        { name: 'short', minSuccess: 0.9, perInput: { minSuccess: 0.8 } },
        { name: 'polite', minSuccess: 0.8, maxErrorShare: 0.1, perInput: { minSuccess: 0.8 } },
      ]);
      expect(e.serialisable).toMatchObject({ validators: [{ name: 'short', perInput: { minSuccess: 0.8 } }] });
      // The verifier's run fields (maxErrorShare, perInput) are the run's: its judge is built without them.
      const { assembleRun } = await import('../run/assemble.js');
      const cols = (await assembleRun(e, { env: { OPENAI_API_KEY: 'test' } })).experiment.validators;
      expect(cols.map((c: { name: string; perInput?: unknown; maxErrorShare?: unknown }) => [c.name, c.perInput, c.maxErrorShare])).toEqual([
        ['short', { minSuccess: 0.8 }, undefined],
        ['polite', { minSuccess: 0.8 }, 0.1],
      ]);
    } finally {
      e.dispose();
    }
    const own = await loadExperiment(
      write(
        'own.yaml',
        TWO.replace('samples: 3', 'samples: 3\nperInput: { minSuccess: 0.8 }').replace('    minSuccess: 0.9\n', '    minSuccess: 0.9\n    perInput: false\n'),
      ),
    );
    expect(own.validators[0].perInput).toBeUndefined();
    expect(own.decision.rules.map((r) => r.perInput)).toEqual([undefined, { minSuccess: 0.8 }]);
    own.dispose();
  });

  it('refuses a floor of 0 or 1, an unknown key, and the pair with stopping: sequential, naming the field', async () => {
    const one = await usage(write('one.yaml', GOOD.replace('samples: 3', 'samples: 3\nperInput: { minSuccess: 1 }')));
    expect(one.message).toMatch(/one\.yaml: perInput\.minSuccess: expected a number strictly between 0 and 1, found 1 \(line 5\)/);
    const typo = await usage(write('typo.yaml', GOOD.replace('    minSuccess: 0.9\n', '    minSuccess: 0.9\n    perInput: { min: 0.8 }\n')));
    expect(typo.message).toMatch(/validators\[0\]\.perInput/);
    const seq = await usage(write('seq.yaml', GOOD.replace('samples: 3', 'samples: 3\nstopping: sequential\nperInput: { minSuccess: 0.8 }')));
    expect(seq.message).toMatch(/seq\.yaml: perInput: expected no perInput with stopping: sequential, found a per-input floor: .* \(line 6\)$/);
    expect(seq.where).toMatchObject({ path: 'perInput', line: 6 });
  });
});

describe('loadExperiment: pass^k (issue 25)', () => {
  const TWO = `${GOOD}verifiers:
  - name: polite
    instructions: Is it polite?
    minSuccess: 0.8
    judge: { openai: { model: m } }
`;
  it('a run default applies to every rule without its own; passK: false opts out; stored in the decision, not given to the judge', async () => {
    const e = await loadExperiment(
      write(
        'passk.yaml',
        TWO.replace('samples: 3', 'samples: 3\npassK: { k: 3, minSuccess: 0.5 }').replace(
          '    minSuccess: 0.8\n',
          '    minSuccess: 0.8\n    passK: { k: 2 }\n',
        ),
      ),
    );
    try {
      expect(e.validators[0].passK).toEqual({ k: 3, minSuccess: 0.5 });
      expect(e.decision.rules.map((r) => r.passK)).toEqual([{ k: 3, minSuccess: 0.5 }, { k: 2 }]);
      const { assembleRun } = await import('../run/assemble.js');
      const cols = (await assembleRun(e, { env: { OPENAI_API_KEY: 'test' } })).experiment.validators;
      expect(cols.map((c) => c.passK)).toEqual([{ k: 3, minSuccess: 0.5 }, { k: 2 }]);
    } finally {
      e.dispose();
    }
    const off = await loadExperiment(
      write('off.yaml', TWO.replace('samples: 3', 'samples: 3\npassK: { k: 3 }').replace('    minSuccess: 0.9\n', '    minSuccess: 0.9\n    passK: false\n')),
    );
    expect(off.decision.rules.map((r) => r.passK)).toEqual([undefined, { k: 3 }]);
    off.dispose();
  });

  it('refuses k above samples, and passK with stopping: sequential, naming the field', async () => {
    const big = await usage(write('big.yaml', GOOD.replace('samples: 3', 'samples: 3\npassK: { k: 5 }')));
    expect(big.message).toMatch(/big\.yaml: passK\.k: expected k ≤ samples \(3\): pass\^k needs k tries of each input, found 5 \(line 5\)/);
    const seq = await usage(write('seqk.yaml', GOOD.replace('samples: 3', 'samples: 3\nstopping: sequential\npassK: { k: 2 }')));
    expect(seq.message).toMatch(/seqk\.yaml: passK: expected no passK with stopping: sequential/);
    const zero = await usage(write('zero.yaml', GOOD.replace('samples: 3', 'samples: 3\npassK: { k: 0 }')));
    expect(zero.message).toMatch(/passK\.k: expected a whole number of tries ≥ 1 \(at most samples\), found 0/);
  });
});

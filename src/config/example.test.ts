import { describe, expect, it } from 'vitest';
import { createSystem } from '../providers/factory.js';
import { evaluateValidator } from '../validators/evaluate.js';
import { loadExperiment } from './load.js';

// End to end through this folder's edge: the example, against the built-in simulated system.
describe('examples/contractions.yaml against its simulated system', () => {
  for (const file of ['examples/contractions.yaml', 'examples/assay.config.ts']) {
    it(`${file}: every output is checked, none is an error, and the pass rate is near the true 0.9`, async () => {
      const e = await loadExperiment(file);
      const system = createSystem(e.systemConfig, { file, baseDir: e.baseDir, inputs: e.inputs });
      try {
        const jobs = e.inputs.flatMap((input, i) =>
          Array.from({ length: e.samples }, async (_, j) => {
            const g = await system.generate(input, { signal: AbortSignal.timeout(e.timeoutMs), sample: j, inputIndex: i });
            return evaluateValidator(e.validators[0], g.text, input, { timeoutMs: e.validatorTimeoutMs });
          }),
        );
        const results = await Promise.all(jobs);
        const count = (o: string) => results.filter((r) => r.outcome === o).length;
        expect(results).toHaveLength(200);
        expect(count('error')).toBe(0);
        expect(count('fail')).toBeGreaterThan(0);
        // 200 draws at p = 0.9: within ±3.3 standard deviations (0.021 each)
        const rate = count('pass') / 200;
        expect(rate).toBeGreaterThan(0.83);
        expect(rate).toBeLessThan(0.97);
      } finally {
        await system.close?.();
        e.dispose();
      }
    });
  }
});

// The experiment of examples/contractions.yaml, written in TypeScript: predicates are real functions.
// Run it with: assay run examples/assay.config.ts. In your own project, import from the package instead:
//   import { defineConfig } from 'assay';
import { defineConfig } from '../src/config/index.js';

export default defineConfig({
  name: 'contractions',
  system: {
    simulated: {
      seed: 42,
      latencyMs: 5,
      outputs: [
        { text: 'It is a fine day and I am glad to see it.', weight: 9 },
        { text: "It's fine, isn't it? Don't worry, I can't complain.", weight: 1 },
      ],
    },
  },
  inputs: ['Describe the weather.', 'Say hello.', 'Greet a customer.', 'Summarise the news.'],
  samples: 50,
  verdict: 'confident',
  validators: [
    {
      name: 'contraction_validator',
      message: 'Output contains too many contractions',
      // The paper's one-argument form: (output) => boolean
      predicate: (o: string) => (o.match(/'/g) ?? []).length <= 3,
      minSuccess: 0.95,
    },
  ],
});

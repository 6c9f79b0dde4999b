/**
 * What the tests and the benchmark of a service lost mid-run share (tests and benchmarks only): the run they
 * start against the mock, the wait until it is under way, and the reading of the lines it prints.
 */

/** A config of `inputs` × `samples` against the mock OpenAI server at `baseURL`, with one validator. */
export function mockRunYaml(name: string, baseURL: string, inputs: number, samples: number): string {
  return `name: ${name}
system: { openai: { baseURL: "${baseURL}", model: m } }
inputs: [${Array.from({ length: inputs }, (_, i) => `"input ${i}"`).join(', ')}]
samples: ${samples}
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
`;
}

/** Resolves once the mock has been asked `n` more times than `before`: the run is under way. */
export async function requestsReach(mock: { requests: readonly unknown[] }, before: number, n: number): Promise<void> {
  while (mock.requests.length - before < n) await new Promise((r) => setTimeout(r, 20));
}

/** How many lines of `text` match `re`. */
export const count = (text: string, re: RegExp): number => text.match(new RegExp(re.source, 'g'))?.length ?? 0;

/** The figure a give-up line states for how long the service was unreachable (s); NaN without one. */
export const unreachableFor = (text: string): number => Number(/has been unreachable for ([\d.]+) s/.exec(text)?.[1] ?? NaN);

/** Silence `proxy` and wait for `ended`: its result, and the seconds from the silence to its end. */
export async function silencedUntil<T>(proxy: { pause(): void }, ended: Promise<T>): Promise<{ result: T; tookS: number }> {
  proxy.pause();
  const at = performance.now();
  const result = await ended;
  return { result, tookS: (performance.now() - at) / 1000 };
}

/** Silence `proxy` for `ms`, then let it answer again. */
export async function silenceFor(proxy: { pause(): void; resume(): void }, ms: number): Promise<void> {
  proxy.pause();
  await new Promise((r) => setTimeout(r, ms));
  proxy.resume();
}

/**
 * What a process printed about one silence of `service` ("queue", "store") under `bound` (as the lines say it,
 * "4 s"): how many lines said it was lost, how many that it was back, and the figure of the back line (s).
 */
export function silenceLines(text: string, service: string, bound: string): { lost: number; back: number; backAfterS: number } {
  return {
    lost: count(text, new RegExp(`lost the ${service} at \\S+ \\(no answer within 3 s\\); trying again for up to ${bound}`)),
    back: count(text, new RegExp(`the ${service} at \\S+ is back \\(after [\\d.]+ s\\)`)),
    backAfterS: Number(/is back \(after ([\d.]+) s\)/.exec(text)?.[1] ?? NaN),
  };
}

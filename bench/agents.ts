/**
 * `npm run -s bench:agents [-- --conversations 1000 --steps 5 --concurrency 32 --json]`
 *
 * What assay itself spends on an agent: 1,000 agent runs (100 inputs × 10 samples) of 5 steps each (4 tool calls,
 * then the answer) against `assay mock` speaking OpenAI's tool-calling format, through the real path a config takes:
 * a YAML config with stub tools loaded, assembled (run/assemble.ts) and run (4 trajectory checks per sample, a memory
 * store). The mock runs in a child process (this file with --serve), so its CPU is not counted; this process's CPU
 * (the openai client, the tool loop, argument checks, stubs, the runner, the checks) is divided by the steps taken.
 * A warm-up run of 100 conversations first, so that compiling and loading are not counted. Then the same for
 * 1,000 scripted conversations of 5 user turns (one model call each, no tools, a rule on every reply).
 *
 * Prints JSON: conversations, steps, cpu_ms_per_step (goal ≤ 0.5), peak_rss_mb (this process, sampled every 20 ms),
 * heap_growth_mb (heap after the timed run and a GC, minus before), wall_s, mock_cpu_ms_per_request,
 * conversation_cpu_ms_per_step, load average.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadExperiment } from '../src/config/load.js';
import { startMock } from '../src/mock/index.js';
import { mockResponder, type MockRule } from '../src/mock/rules.js';
import { assembleRun } from '../src/run/assemble.js';
import { runExperiment } from '../src/run/runner.js';
import { MemoryStore } from '../src/store/memory.js';

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    conversations: { type: 'string', default: '1000' },
    steps: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    warmup: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
  },
});
const STEPS = Number(values.steps);
const TOOLS = Array.from({ length: STEPS - 1 }, (_, n) => `tool_${n + 1}`);

if (values.serve) {
  // The model: tool_1 at the start of a turn, tool_k+1 after tool_k's result, the answer after the last.
  const rules: MockRule[] = [
    ...TOOLS.slice(1).map((name, n): MockRule => ({ afterTool: TOOLS[n], call: { name, arguments: { id: '{{1}}', step: n + 2 } } })),
    { afterTool: TOOLS[TOOLS.length - 1], reply: 'Done: {{result}}' },
    { model: 'bench', regex: 'ticket (\\d+)', call: { name: TOOLS[0], arguments: { id: '{{1}}', step: 1 } } },
    // The conversations' model: one reply a turn.
    { model: 'bench-chat', reply: 'Noted: {{input}}' },
  ];
  const mock = await startMock('openai', { chat: mockResponder({ rules }) });
  process.send!({ baseURL: mock.baseURL });
  process.on('message', async () => {
    const cpu = process.cpuUsage();
    process.send!({ requests: mock.requests.length, cpuS: (cpu.user + cpu.system) / 1e6 });
    await mock.close();
    process.exit(0);
  });
} else {
  const child = fork(new URL(import.meta.url).pathname, ['--serve', '--steps', String(STEPS)], { execArgv: process.execArgv });
  const { baseURL } = await new Promise<{ baseURL: string }>((resolve) => child.once('message', (m) => resolve(m as { baseURL: string })));
  const dir = mkdtempSync(join(tmpdir(), 'assay-bench-agents-'));
  const concurrency = Number(values.concurrency);

  const config = (conversations: number) => {
    const inputs = Math.max(1, Math.round(conversations / 10));
    const tools = TOOLS.map(
      (name, n) =>
        `      - name: ${name}\n        parameters: { type: object, properties: { id: { type: string }, step: { type: integer } }, required: [id] }\n` +
        `        results: [{ when: { step: ${n + 1} }, result: { ok: true, step: ${n + 1}, note: "looked it up" } }, { error: "out of order" }]\n`,
    ).join('');
    const file = join(dir, `agents-${conversations}.yaml`);
    writeFileSync(
      file,
      `name: bench-agents
system:
  openai:
    model: bench
    baseURL: "${baseURL}"
    maxSteps: ${STEPS + 1}
    tools:
${tools}inputs: [${Array.from({ length: inputs }, (_, i) => `"Please help with ticket ${i + 1}."`).join(', ')}]
samples: ${Math.round(conversations / inputs)}
concurrency: ${concurrency}
validators:
  - { name: first tool, check: { type: tool-called, name: ${TOOLS[0]}, times: 1 }, minSuccess: 0.9 }
  - { name: in order, check: { type: tool-order, sequence: [${TOOLS.join(', ')}] }, minSuccess: 0.9 }
  - { name: steps, check: { type: max-steps, max: ${STEPS} }, minSuccess: 0.9 }
  - { name: no errors, check: { type: no-tool-errors }, minSuccess: 0.9 }
`,
    );
    return file;
  };

  /** Scripted conversations of STEPS user turns, one model call each, no tools; every reply checked (perTurn). */
  const chatConfig = (conversations: number) => {
    const inputs = Math.max(1, Math.round(conversations / 10));
    const file = join(dir, `chat-${conversations}.yaml`);
    const turns = (i: number) => `[${Array.from({ length: STEPS }, (_, t) => `"Ticket ${i}, message ${t + 1}."`).join(', ')}]`;
    writeFileSync(
      file,
      `name: bench-conversations
system:
  openai:
    model: bench-chat
    baseURL: "${baseURL}"
    conversation: { maxTurns: ${STEPS} }
inputs:
${Array.from({ length: inputs }, (_, i) => `  - { turns: ${turns(i + 1)} }`).join('\n')}
samples: ${Math.round(conversations / inputs)}
concurrency: ${concurrency}
validators:
  - { name: short replies, check: { type: words, max: 20 }, perTurn: true, minSuccess: 0.9 }
  - { name: steps, check: { type: max-steps, max: ${STEPS} }, minSuccess: 0.9 }
`,
    );
    return file;
  };

  const run = async (conversations: number, make = config) => {
    const x = await loadExperiment(make(conversations));
    await using assembled = await assembleRun(x, { maxErrors: 0 });
    return runExperiment({ ...assembled, store: new MemoryStore() });
  };

  await run(Number(values.warmup));
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const conversations = Number(values.conversations);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await run(conversations);
  const cpu = process.cpuUsage(cpu0);
  const wallS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  global.gc?.();
  const heapGrowth = process.memoryUsage().heapUsed - heap0;

  // The same for conversations: STEPS user turns of one model call each.
  await run(Number(values.warmup), chatConfig);
  const cpuChat0 = process.cpuUsage();
  const chat = await run(conversations, chatConfig);
  const cpuChat = process.cpuUsage(cpuChat0);
  const chatSteps = Math.round((chat.stats.agent?.steps.mean ?? 0) * (chat.stats.agent?.trajectories ?? 0));

  child.send('stop');
  const served = await new Promise<{ requests: number; cpuS: number }>((resolve) =>
    child.once('message', (m) => resolve(m as { requests: number; cpuS: number })),
  );
  rmSync(dir, { recursive: true, force: true });

  const agent = result.stats.agent;
  const steps = Math.round((agent?.steps.mean ?? 0) * (agent?.trajectories ?? 0));
  const out = {
    conversations: agent?.trajectories ?? 0,
    steps,
    steps_per_conversation: agent?.steps.mean ?? 0,
    tool_calls: agent?.toolCalls ?? 0,
    tool_errors: agent?.toolErrors ?? 0,
    generation_errors: result.stats.generationErrors,
    cpu_ms_per_step: Number(((cpu.user + cpu.system) / 1000 / steps).toFixed(3)),
    goal_cpu_ms_per_step: 0.5,
    peak_rss_mb: Math.round(peakRss / 1e6),
    heap_growth_mb: Number((heapGrowth / 1e6).toFixed(1)),
    wall_s: Number(wallS.toFixed(2)),
    concurrency,
    mock_cpu_ms_per_request: Number(((served.cpuS * 1000) / served.requests).toFixed(3)),
    conversation_turns: chatSteps,
    conversation_cpu_ms_per_step: Number(((cpuChat.user + cpuChat.system) / 1000 / chatSteps).toFixed(3)),
    load_average: Number(loadavg()[0].toFixed(1)),
  };
  if (values.json) process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  else
    process.stdout.write(
      `bench:agents: ${out.conversations} conversations, ${out.steps} steps (${out.tool_calls} tool calls, ${out.tool_errors} errors): ` +
        `${out.cpu_ms_per_step} ms CPU per step (goal ≤ 0.5), peak RSS ${out.peak_rss_mb} MB, ${out.wall_s} s at concurrency ${concurrency}; ` +
        `conversations of ${STEPS} turns: ${out.conversation_cpu_ms_per_step} ms CPU per turn\n`,
    );
}

import { describe, expect, it } from 'vitest';
import { agentResult } from '../core/testing/ai-sdk-result.js';
import './matchers.js';

// The matchers registered by `import 'assay/vitest/matchers'`, with their messages as a user reads them.

describe('toSatisfy', () => {
  it("keeps Vitest's predicate form", () => {
    expect(3).toSatisfy((x: number) => x > 2);
    expect(() =>
      expect(1).toSatisfy(function isBig(x: number) {
        return x > 2;
      }),
    ).toThrow('expected 1 to satisfy isBig');
    expect(1).not.toSatisfy((x: number) => x > 2);
  });

  it('checks one output against a built-in check spec', () => {
    expect('Your parcel left today.').toSatisfy({ type: 'max-count', pattern: 'sorry', flags: 'i', max: 1 });
    expect(() => expect('Sorry, sorry, no.').toSatisfy({ type: 'max-count', pattern: 'sorry', flags: 'i', max: 1 })).toThrow(
      'at most 1 match of /sorry/gi: FAIL\n  output: "Sorry, sorry, no."',
    );
  });

  it('checks against a named validator with a check or a predicate', () => {
    expect(() => expect('{"a":1').toSatisfy({ name: 'json-out', check: { type: 'json' } })).toThrow('json-out (parses as JSON): FAIL\n  output: \'{"a":1\'');
    expect('ok').toSatisfy({ name: 'short', predicate: (o: string) => o.length < 5 });
  });

  it('says a rule that throws is an error, not a failure', () => {
    const rule = {
      name: 'parses',
      predicate: (o: string) => {
        JSON.parse(o);
        return true;
      },
    };
    expect(() => expect('nope').toSatisfy(rule)).toThrow(/^parses: ERROR · the rule threw: .*\(an error decides nothing\)\n {2}output: "nope"$/);
  });

  it('refuses a check spec it cannot use, naming the field', () => {
    expect(() => expect('x').toSatisfy({ type: 'max-count', pattern: 'a' } as never)).toThrow(/^toSatisfy\(rule\)\.max: /);
  });

  it('names the check type it does not know, as a config file would', () => {
    expect(() => expect('hello').toSatisfy({ type: 'containz', value: 'bye' } as never)).toThrow(
      /^toSatisfy\(rule\)\.type: expected one of contains, .*, found "containz"$/,
    );
    expect(() => expect('hello').toSatisfy({ name: 'n', check: { type: 'containz' } } as never)).toThrow(
      /^toSatisfy\(rule\)\.check\.type: .*found "containz"$/,
    );
  });
});

describe('toHoldReliably', () => {
  const noLoop = { type: 'max-count', pattern: 'sorry', flags: 'i', max: 1 } as const;

  it("passes on assay's PASS verdict", async () => {
    await expect(() => 'Your parcel left today.').toHoldReliably(noLoop, { samples: 60, minSuccess: 0.9 });
  });

  it('fails with the rate, interval, error share, reason and a failing output', async () => {
    let n = 0;
    const flaky = async () => (n++ % 4 === 0 ? 'Sorry, sorry.' : 'Fine.');
    await expect(expect(flaky).toHoldReliably(noLoop, { samples: 40, minSuccess: 0.9 })).rejects.toThrow(
      'at most 1 match of /sorry/gi: FAIL · rate 75.0% [58.8%, 87.3%] (95% CI, inputs run) · minSuccess 90.0% · errors 0.0% (30 pass, 10 fail, 0 error)\n' +
        '  upper bound 87.3% < minSuccess 90.0%\n' +
        '  e.g. "Sorry, sorry."',
    );
  });

  it('fails an inconclusive verdict saying how many more samples decide it', async () => {
    let n = 0;
    const few = () => (n++ % 10 === 0 ? 'Sorry, sorry.' : 'Fine.');
    await expect(expect(few).toHoldReliably(noLoop, { samples: 20, minSuccess: 0.8 })).rejects.toThrow(
      /INCONCLUSIVE · rate 90\.0% \[68\.3%, 98\.8%\] \(95% CI, inputs run\).*\n {2}bounds \[68\.3%, 98\.8%\] straddle minSuccess 80\.0%; ~\d+ more samples decide it with 80% probability if the rates hold/,
    );
  });

  it('counts a call that throws as an error, never a failure', async () => {
    let n = 0;
    const down = () => {
      if (n++ % 2) throw new Error('503');
      return 'Fine.';
    };
    await expect(expect(down).toHoldReliably(noLoop, { samples: 20, minSuccess: 0.5 })).rejects.toThrow(
      /ERROR · .*errors 50\.0% \(10 pass, 0 fail, 10 error\)/,
    );
  });
});

describe('matcher arguments', () => {
  const rule = { type: 'words', max: 4 } as const;
  const hold = (options: unknown, r: unknown = rule) => expect(() => 'x').toHoldReliably(r as never, options as never);

  it("names toHoldReliably's options and the field, not describeReliability or validators[0]", async () => {
    await expect(hold({ samples: 0, minSuccess: 0.5 })).rejects.toThrow(/^toHoldReliably\(…, options\)\.samples: expected an integer from 1 to \d+, found 0$/);
    await expect(hold({ samples: 30, minSuccess: 2 })).rejects.toThrow(
      /^toHoldReliably\(…, options\)\.minSuccess: expected a number between 0 and 1, found 2$/,
    );
    await expect(hold({ samples: 30, minSuccess: 0.5, confidence: 1 })).rejects.toThrow(/^toHoldReliably\(…, options\)\.confidence: /);
  });

  it('refuses an unknown option, suggesting the one meant, first', async () => {
    await expect(hold({ samples: 30, minSucess: 0.5 })).rejects.toThrow(
      /^toHoldReliably\(…, options\)\.minSucess: unknown key \(expected one of: samples, minSuccess, confidence, timeoutMs\); did you mean "minSuccess"\?\n/,
    );
  });

  it("names a validator rule's field under toHoldReliably(rule)", async () => {
    await expect(hold({ samples: 30, minSuccess: 0.5 }, { name: 'n', check: rule, weigth: 2 })).rejects.toThrow(
      /^toHoldReliably\(rule\)\.weigth: unknown key \(expected one of: name, .*\); did you mean "weight"\?$/,
    );
  });

  it("names a validator rule's field under toSatisfy(rule)", () => {
    expect(() => expect('x').toSatisfy({ name: 'n', check: rule, onError: 'skip' } as never)).toThrow(
      /^toSatisfy\(rule\)\.onError: expected "error" \(a throw is an error outcome, the default\) or "fail" \(a throw means the output failed\), found "skip"$/,
    );
    expect(() => expect('x').toSatisfy({ name: 'n', check: { ...rule, mx: 3 } } as never)).toThrow(
      /^toSatisfy\(rule\)\.check\.mx: unknown key \(expected one of: type, min, max\); did you mean "max"\?$/,
    );
  });

  it("lists a check's own keys for a key it does not know", () => {
    expect(() => expect('x').toSatisfy({ type: 'contains', value: 'x', vaule: 2 } as never)).toThrow(
      /^toSatisfy\(rule\)\.vaule: unknown key \(expected one of: type, value, ignoreCase, match\); did you mean "value"\?$/,
    );
  });
});

describe("an agent's result", () => {
  const looked = agentResult([{ name: 'lookup_order', input: { orderId: 'A1', verbose: true }, output: { status: 'shipped' } }], 'It shipped.');
  const refunded = agentResult(
    [
      { name: 'lookup_order', input: { orderId: 'A2' }, output: { status: 'broken' } },
      { name: 'refund', input: { orderId: 'A2', amount: 20 }, output: 'ok' },
    ],
    'Refunded.',
  );

  it('toHaveCalledTool: by name, by arguments included; .not says which calls it made', () => {
    expect(looked).toHaveCalledTool('lookup_order');
    expect(looked).toHaveCalledTool('lookup_order', { orderId: 'A1' });
    expect(looked).not.toHaveCalledTool('refund');
    expect(() => expect(looked).toHaveCalledTool('lookup_order', { orderId: 'A2' })).toThrow(
      'expected the agent to call lookup_order with arguments including {"orderId":"A2"}; the calls it made:\n    lookup_order({"orderId":"A1","verbose":true}) → {"status":"shipped"}',
    );
    expect(() => expect(refunded).not.toHaveCalledTool('refund')).toThrow(
      'expected the agent not to call refund, but it did 1 time:\n    refund({"orderId":"A2","amount":20}) → ok',
    );
    expect({ output: 'x', steps: [{ toolCalls: [{ name: 'search', arguments: { q: 'a' } }] }] }).toHaveCalledTool('search', { q: 'a' });
  });

  it('a text answer has no steps: an error for both forms, never a silent pass of .not', () => {
    expect(() => expect('It shipped.').not.toHaveCalledTool('refund')).toThrow(
      /toHaveCalledTool: checking tool calls needs the agent's steps, and this output has none/,
    );
    expect(() => expect(42).toHaveCalledTool('refund')).toThrow(/expected a string output or an agent's result, found number/);
    expect(() => expect(looked).toHaveCalledTool('')).toThrow(/^toHaveCalledTool\(name, arguments\?\): expected a tool name/);
  });

  it('toSatisfy reads the steps for trajectory checks and the final answer for text checks', () => {
    expect(looked).toSatisfy({ type: 'tool-not-called', name: 'refund' });
    expect(looked).toSatisfy({ type: 'contains', value: 'shipped' });
    expect(() => expect(refunded).toSatisfy({ type: 'tool-not-called', name: 'refund' })).toThrow(
      'never calls the tool "refund": FAIL\n  output: "Refunded."\n  steps: 3 steps, 2 tool calls (lookup_order, refund)',
    );
    expect(() => expect('text').toSatisfy({ type: 'tool-called', name: 'x' })).toThrow(/ERROR · the rule threw: tool-called needs the agent's steps/);
  });

  it("toHoldReliably repeats an agent and decides by assay's verdict", async () => {
    let n = 0;
    const agent = async () => (n++ % 4 === 0 ? refunded : looked);
    await expect(expect(agent).toHoldReliably({ type: 'tool-not-called', name: 'refund' }, { samples: 40, minSuccess: 0.9 })).rejects.toThrow(
      'never calls the tool "refund": FAIL · rate 75.0% [58.8%, 87.3%] (95% CI, inputs run) · minSuccess 90.0% · errors 0.0% (30 pass, 10 fail, 0 error)',
    );
    await expect(async () => looked).toHoldReliably({ type: 'tool-called', name: 'lookup_order' }, { samples: 60, minSuccess: 0.9 });
  });
});

describe('matchers on one run of a tools: agent (an assay system answer: { text, trajectory })', () => {
  it('toHaveCalledTool reads its trajectory', async () => {
    const { startMock } = await import('../mock/index.js');
    const { mockResponder } = await import('../mock/rules.js');
    const { createSystem } = await import('../providers/factory.js');
    const server = await startMock('openai', {
      chat: mockResponder({
        rules: [
          { afterTool: '*', reply: '{{result}}' },
          { regex: 'order (A\\d+)', call: { name: 'lookup_order', arguments: { orderId: '{{1}}' } } },
        ],
      }),
    });
    try {
      const agent = createSystem(
        { openai: { model: 'm', baseURL: server.baseURL, tools: [{ name: 'lookup_order', parameters: { type: 'object' }, result: 'shipped' }] } },
        { baseDir: '.', env: {} },
      );
      const run = await agent.generate('Where is order A1?', { signal: new AbortController().signal, sample: 0, inputIndex: 0 });
      expect(run).toHaveCalledTool('lookup_order', { orderId: 'A1' });
      expect(run).not.toHaveCalledTool('refund');
    } finally {
      await server.close();
    }
  });
});

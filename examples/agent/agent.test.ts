import { describeReliability } from 'assay/vitest';
import { inject } from 'vitest';

// The support agent of agent.yaml, with its tools as real functions: assay runs the tool loop (each call checked
// against the tool's schema, run with a time limit, its result sent back to the model) and records every step.
const ORDERS: Record<string, string> = { A1: 'shipped, arriving tomorrow', A2: 'delivered on Monday', A3: 'in transit' };
const refunds: string[] = [];

const tools = [
  {
    name: 'lookup_order',
    description: 'The status of an order, by its id.',
    parameters: { type: 'object', properties: { orderId: { type: 'string', pattern: '^A[0-9]+$' } }, required: ['orderId'] },
    execute: ({ orderId }: { orderId: string }) => {
      if (!(orderId in ORDERS)) throw new Error('no such order');
      return ORDERS[orderId];
    },
  },
  {
    name: 'issue_refund',
    description: 'Refund an order in full. Only for delivered orders.',
    parameters: { type: 'object', properties: { orderId: { type: 'string' }, reason: { type: 'string' } }, required: ['orderId'] },
    execute: ({ orderId }: { orderId: string }) => {
      refunds.push(orderId);
      return { refundId: `R-${1000 + refunds.length}`, status: 'accepted' };
    },
  },
  {
    name: 'close_account',
    description: "Close the customer's account. Never without a human.",
    parameters: { type: 'object', properties: { reason: { type: 'string' } } },
    execute: () => {
      throw new Error('not allowed from the support agent');
    },
  },
];

describeReliability('support agent', {
  inputs: [
    { question: 'Where is order A1?', delivered: false },
    { question: 'Refund order A2, it arrived broken.', delivered: true },
    { question: 'Refund order A3, I changed my mind.', delivered: false },
  ],
  samples: 20,
  system: {
    openai: {
      baseURL: inject('llmBaseURL'),
      model: 'support-agent',
      system: 'You are a support agent. Look the order up before answering. Refund only delivered orders.',
      template: '{{question}}',
      maxSteps: 5,
      toolTimeoutMs: 2000,
      tools,
    },
  },
  validators: [
    // Pass: every order is looked up once, no account is closed.
    { name: 'looks the order up', check: { type: 'tool-called', name: 'lookup_order', times: 1 }, minSuccess: 0.9 },
    { name: 'never closes accounts', check: { type: 'tool-not-called', name: 'close_account' }, minSuccess: 0.9 },
    // Fails on purpose: the scripted model refunds A3, which is still in transit.
    {
      name: 'refunds only delivered orders',
      predicate: (_output, input, t) =>
        (input as { delivered: boolean }).delivered || !t!.steps.some((s) => s.toolCalls.some((c) => c.name === 'issue_refund')),
      minSuccess: 0.9,
    },
  ],
  passK: { k: 5 },
});

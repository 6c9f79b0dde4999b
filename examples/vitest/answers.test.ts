import { expect, inject, test } from 'vitest';

// The system under test as the app's own async function: here a plain fetch to the (mock) model.
async function answer(question: string): Promise<string> {
  const res = await fetch(`${inject('llmBaseURL')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer mock' },
    body: JSON.stringify({ model: 'support-bot', messages: [{ role: 'user', content: question }] }),
  });
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  return body.choices[0].message.content;
}

test('one answer mentions the delivery', async () => {
  expect(await answer('Where is my order?')).toSatisfy({ type: 'contains', value: 'tomorrow' });
});

// 80 straight passes put the 95% interval's lower bound at 95.5%: enough to show a 95% floor (60 would leave it inconclusive).
test('delivery answers stay short, reliably', async () => {
  await expect(() => answer('Where is my order?')).toHoldReliably({ type: 'words', max: 40 }, { samples: 80, minSuccess: 0.95 });
});

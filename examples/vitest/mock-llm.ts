import { startMock } from 'assay/testing';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    llmBaseURL: string;
  }
}

/**
 * A stand-in for a paid model: it answers delivery questions well, but one refund answer in three apologises in
 * a loop. Tests reach it at inject('llmBaseURL').
 */
export default async function setup(project: TestProject) {
  let refunds = 0;
  const mock = await startMock('openai', {
    chat: (request) => {
      const question = request.messages.at(-1)?.content ?? '';
      if (/refund/i.test(question)) return { content: refunds++ % 3 === 0 ? 'Sorry, so sorry, we are sorry: no refund.' : 'Your refund is on its way.' };
      return { content: 'Your parcel left the warehouse today and arrives tomorrow.' };
    },
  });
  project.provide('llmBaseURL', mock.baseURL);
  return () => mock.close();
}

import { boundAnswer, judgeCallOf } from '../judge/binding.js';
import type { MockChatView } from './types.js';
import { contentText } from './server.js';

/** A judge request as tests hold it: the mock's view, an OpenAI-shaped body, or the prompt text itself. */
export type JudgeRequestLike = Pick<MockChatView, 'system' | 'messages'> | { messages: { role: string; content: unknown }[] } | string;

function promptOf(request: JudgeRequestLike): string {
  if (typeof request === 'string') return request;
  const parts = request.messages.map((m) => contentText(m.content));
  return 'system' in request && typeof request.system === 'string' ? [request.system, ...parts].join('\n') : parts.join('\n');
}

/** Whether a request is a judge's (its prompt states a verdict nonce). */
export function isJudgeRequest(request: JudgeRequestLike): boolean {
  return judgeCallOf(promptOf(request)) !== undefined;
}

/**
 * What a cooperating judge answers to `request`: `verdict` with `reasons`, bound to the nonce its prompt states,
 * in the format it asks for (a JSON object, or a verdict line) — for a scripted `chat` handler playing an
 * assay judge (`{ content: judgeReply(request, 'FAIL', ['Too curt.']) }`). A request that is not a judge's
 * is a mistake in the script, so it throws.
 */
export function judgeReply(request: JudgeRequestLike, verdict: 'PASS' | 'FAIL', reasons: readonly string[] = []): string {
  const call = judgeCallOf(promptOf(request));
  if (!call) throw new Error('judgeReply: the request is not a judge request (its prompt states no verdict nonce)');
  return boundAnswer(call.format, call.nonce, verdict, reasons);
}

import { toolCallsOf, type ToolCallRecord, type Trajectory } from './trajectory.js';

/**
 * How much of a trajectory is kept and shown. The store keeps each tool result whole up to a limit (the model
 * had all of it); a judge and a person reading a trace see it shortened. One place decides both.
 */

/** A tool result is stored whole up to 1,000,000 characters of its JSON text, and cut there (`truncated: true`). */
export const STORED_RESULT_MAX_CHARS = 1_000_000;
/** All of one trajectory's stored results together: past 8,000,000 characters, later results keep 1,000 each. */
export const STORED_RESULTS_TOTAL_CHARS = 8_000_000;
const STORED_RESULT_FLOOR_CHARS = 1_000;
/** What a judge sees of one tool result, and of the whole rendered trajectory. */
export const JUDGE_RESULT_MAX_CHARS = 2_000;
export const JUDGE_TRAJECTORY_MAX_CHARS = 20_000;

/** A value as the text a person or a judge reads: a string as it is, anything else as JSON. */
export function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`);

/**
 * The trajectory as it is stored: every tool result whole up to STORED_RESULT_MAX_CHARS characters of its JSON
 * text, and the trajectory's results together up to STORED_RESULTS_TOTAL_CHARS (past it, each later result keeps
 * its first 1,000 characters). A cut result is kept as the start of its text, marked `truncated`. Returns the
 * trajectory itself when nothing needs cutting.
 */
export function limitTrajectory(t: Trajectory, maxResult = STORED_RESULT_MAX_CHARS, maxTotal = STORED_RESULTS_TOTAL_CHARS): Trajectory {
  let used = 0;
  let changed = false;
  const steps = t.steps.map((s) => {
    const toolCalls = s.toolCalls.map((c): ToolCallRecord => {
      if (c.result === undefined) return c;
      const text = typeof c.result === 'string' ? c.result : valueText(c.result);
      const limit = Math.max(STORED_RESULT_FLOOR_CHARS, Math.min(maxResult, maxTotal - used));
      used += Math.min(text.length, limit);
      if (text.length <= limit) return c;
      changed = true;
      return { ...c, result: text.slice(0, limit), truncated: true };
    });
    return toolCalls.some((c, n) => c !== s.toolCalls[n]) ? { ...s, toolCalls } : s;
  });
  return changed ? { ...t, steps } : t;
}

/** One tool call in a line: `lookup_order({"id":"A1"}) → {"status":"shipped"}` or `→ error: …`. */
export function toolCallLine(c: ToolCallRecord, maxResult: number): string {
  const args = c.arguments !== undefined ? valueText(c.arguments) : (c.argumentsText ?? '');
  const head = `${c.name}(${cut(args, Math.max(200, Math.floor(maxResult / 2)))})`;
  if (c.error !== undefined) return `${head} → error: ${cut(c.error, maxResult)}`;
  if (c.result === undefined) return `${head} → (no result)`;
  return `${head} → ${cut(valueText(c.result), maxResult)}${c.truncated ? ' [result cut where it was stored]' : ''}`;
}

/**
 * A trajectory as compact text, a line per message, text and tool call: what a judge reads (inside its nonce-tagged
 * data block, prompt.ts) and what a person reads in a terminal. Each result is cut at `maxResult` characters and the
 * whole at `maxChars`, saying how much was left out.
 */
export function renderTrajectory(t: Trajectory, maxResult = JUDGE_RESULT_MAX_CHARS, maxChars = JUDGE_TRAJECTORY_MAX_CHARS): string {
  const lines: string[] = [];
  t.steps.forEach((s, n) => {
    lines.push(`step ${n + 1}${s.finishReason ? ` (${s.finishReason})` : ''}:`);
    for (const m of s.messages ?? []) lines.push(`  ${m.role}: ${cut(m.content.replace(/\s+/g, ' '), maxResult)}`);
    if (s.text) lines.push(`  text: ${cut(s.text.replace(/\s+/g, ' '), maxResult)}`);
    for (const c of s.toolCalls) lines.push(`  call ${toolCallLine(c, maxResult)}`);
  });
  if (t.ended === 'max-steps') lines.push('(the step limit ended it before a final answer)');
  if (t.ended === 'max-turns') lines.push('(the turn limit ended the conversation before its stop condition)');
  let text = '';
  for (const [n, l] of lines.entries()) {
    if (text.length + l.length + 1 > maxChars) {
      text += `… ${lines.length - n} more line(s) left out`;
      break;
    }
    text += `${l}\n`;
  }
  return text.trimEnd();
}

/** A trajectory in one line: "3 steps, 4 tool calls (lookup_order ×2, refund), 1 tool error". */
export function trajectoryLine(t: Trajectory): string {
  const calls = toolCallsOf(t);
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  const names = [...counts].map(([n, k]) => (k > 1 ? `${n} ×${k}` : n)).join(', ');
  const errors = calls.filter((c) => c.error !== undefined).length;
  const plural = (k: number, w: string) => `${k} ${w}${k === 1 ? '' : 's'}`;
  return [
    plural(t.steps.length, 'step'),
    `${plural(calls.length, 'tool call')}${names ? ` (${names})` : ''}`,
    ...(errors ? [plural(errors, 'tool error')] : []),
    ...(t.ended === 'max-steps' ? ['cut by the step limit'] : t.ended === 'max-turns' ? ['cut by the turn limit'] : []),
  ].join(', ');
}

import { visibleControls } from '../core/text.js';
import { outcomeName } from '../core/outcome.js';
import { renderTrajectory } from '../core/trajectory-text.js';
import type { Trajectory } from '../core/trajectory.js';
import type { AgentStats } from '../run/stats.js';
import type { RunRecord, SampleRecord } from '../store/types.js';
import { pushAll } from '../core/arrays.js';

/** An agent's runs as every report says them, and one run's steps as a person reads a trace. */

/** Tools named in the one-line summary (all are in the JSON report's stats.agent). */
const TOOLS_SHOWN = 6;

/** "agent: 30 runs with steps · steps mean 2.7, max 4 · 88 tool calls (lookup_order 30, refund 8 (2 errors)) · 2 tool errors · 1 cut by its limit". */
export function agentLine(a: AgentStats): string {
  const tools = a.tools.slice(0, TOOLS_SHOWN).map((t) => `${t.name} ${t.calls}${t.errors ? ` (${t.errors} error${t.errors === 1 ? '' : 's'})` : ''}`);
  const more = a.tools.length > TOOLS_SHOWN ? `, ${a.tools.length - TOOLS_SHOWN} more` : '';
  return [
    `agent: ${a.trajectories} run${a.trajectories === 1 ? '' : 's'} with steps`,
    ...(a.turns
      ? [`${a.turns.conversations} conversation${a.turns.conversations === 1 ? '' : 's'}, turns mean ${a.turns.mean.toFixed(1)}, max ${a.turns.max}`]
      : []),
    `steps mean ${a.steps.mean.toFixed(1)}, max ${a.steps.max}`,
    `${a.toolCalls} tool call${a.toolCalls === 1 ? '' : 's'}${tools.length ? ` (${tools.join(', ')}${more})` : ''}`,
    ...(a.toolErrors ? [`${a.toolErrors} tool error${a.toolErrors === 1 ? '' : 's'}`] : []),
    ...(a.cutByLimit - (a.turns?.cutByLimit ?? 0) ? [`${a.cutByLimit - (a.turns?.cutByLimit ?? 0)} cut by the step limit`] : []),
    ...(a.turns?.cutByLimit ? [`${a.turns.cutByLimit} cut by the turn limit`] : []),
  ].join(' · ');
}

/** A stored sample's steps for a terminal (`assay show --sample`): each result cut at `maxResult` characters. */
export function traceLines(t: Trajectory, maxResult = 400): string[] {
  return renderTrajectory(t, maxResult, 200_000).split('\n');
}

/**
 * One stored output as a person reads it in a terminal (`assay show <run> --sample 3,2`): its input, the steps
 * (each call with its arguments and result or error, results cut at 400 characters), the final answer, and each
 * rule's outcome with its error or reasons.
 */
export function sampleText(run: RunRecord, s: SampleRecord): string {
  const input = run.inputs[s.i];
  const lines = [`input ${s.i + 1}, sample ${s.j + 1} of run ${run.id}`, `input: ${typeof input === 'string' ? input : JSON.stringify(input)}`];
  if (s.trajectory) pushAll(lines, traceLines(s.trajectory));
  if (s.generationError !== undefined) lines.push(`generation failed: ${s.generationError}`);
  else lines.push(`${s.trajectory ? 'final answer' : 'output'}: ${s.output ?? ''}`);
  run.validators.forEach((v, k) => {
    const detail = [s.errors?.[k], ...(s.reasons?.[k] ?? [])].filter(Boolean).join('; ');
    lines.push(`  ${v.name}: ${outcomeName(s.outcomes[k]).toUpperCase()}${detail ? ` · ${detail}` : ''}`);
  });
  // Untrusted text (inputs, outputs, reasons) with its bidi and control characters marked for the terminal.
  return visibleControls(lines.join('\n')) + '\n';
}

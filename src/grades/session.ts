/**
 * A person grading a queue of outputs in the terminal (`assay grade`), with the dashboard page's keys:
 * p pass, f fail, s skip, u undo, arrows or j/k move, q quit. The rule's own verdict and reasons stay hidden
 * until the person has graded the output (no anchoring), then are shown with agreement marked. Each grade is
 * stored as it is given (durable at once); undo deletes this session's grades, newest first.
 */
import { visibleControls } from '../core/text.js';
import { Outcome } from '../core/outcome.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { InputValue } from '../core/validator.js';
import type { GradeRecord, RunRecord, SampleRecord, Store } from '../store/types.js';
import type { QueueItem } from './queue.js';
import { ruleAsks } from './rule-asks.js';

export type GradingKey = 'pass' | 'fail' | 'skip' | 'undo' | 'next' | 'prev' | 'quit';

/**
 * Keys in `text` (what a terminal in raw mode, or a pipe, sends): p f s u q, j/k, the arrow keys' escape
 * sequences, Ctrl-C and Ctrl-D as quit. Anything else (newlines, spaces, unknown keys) is ignored.
 */
export function parseKeys(text: string): GradingKey[] {
  const keys: GradingKey[] = [];
  for (let at = 0; at < text.length; at++) {
    const ch = text[at];
    if (ch === '\x1b' && (text[at + 1] === '[' || text[at + 1] === 'O')) {
      const arrow = text[at + 2];
      if (arrow === 'C' || arrow === 'B') keys.push('next');
      else if (arrow === 'D' || arrow === 'A') keys.push('prev');
      at += 2;
      continue;
    }
    const key = KEYS[ch.toLowerCase()];
    if (key) keys.push(key);
  }
  return keys;
}

const KEYS: Record<string, GradingKey> = { p: 'pass', f: 'fail', s: 'skip', u: 'undo', j: 'next', k: 'prev', q: 'quit', '\x03': 'quit', '\x04': 'quit' };

export interface SessionOptions {
  store: Store;
  run: RunRecord;
  tensor: ReliabilityTensor;
  /** The rule graded (its column k). */
  k: number;
  grader: string;
  queue: QueueItem[];
  /** Where screens go. */
  write: (text: string) => void;
  /** Clear the screen between outputs (a terminal); false for a pipe. */
  clear?: boolean;
}

const verdictWord = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

function inputText(input: InputValue | undefined): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? null, null, 2);
}

export class GradingSession {
  private pos = 0;
  /** This grader's latest grade of each queued output (earlier sessions' included). */
  private mine = new Map<string, GradeRecord>();
  /** Grades given in this session, newest last: what undo takes back. */
  private given: GradeRecord[] = [];
  private samples = new Map<string, SampleRecord | undefined>();
  private done = false;

  constructor(private o: SessionOptions) {}

  private get rule() {
    return this.o.run.validators[this.o.k];
  }

  private key(item: QueueItem): string {
    return `${item.i},${item.j}`;
  }

  /** Grades given in this session. */
  get count(): number {
    return this.given.length;
  }

  get finished(): boolean {
    return this.done;
  }

  /** Queued outputs this grader has graded (in any session). */
  get gradedInQueue(): number {
    return this.o.queue.filter((it) => this.mine.has(this.key(it))).length;
  }

  /** Read the grader's earlier grades, go to the first output they have not graded, and show it. */
  async start(): Promise<void> {
    const earlier = await this.o.store.grades.list(this.o.run.id, { rule: this.rule.name, grader: this.o.grader });
    for (const g of earlier) this.mine.set(`${g.i},${g.j}`, g);
    const first = this.o.queue.findIndex((it) => !this.mine.has(this.key(it)));
    if (first < 0) {
      this.o.write(`All ${this.o.queue.length} outputs of this queue are graded by ${this.o.grader}. Move with ←/→ (j/k) to review them, q to quit.\n`);
      this.pos = 0;
    } else this.pos = first;
    if (this.o.queue.length) await this.show();
  }

  /** Act on one key; false once the session is over. */
  async press(key: GradingKey): Promise<boolean> {
    if (this.done) return false;
    const item = this.o.queue[this.pos];
    switch (key) {
      case 'quit':
        this.done = true;
        return false;
      case 'pass':
      case 'fail': {
        if (!item) return true;
        const g = await this.o.store.grades.record(this.o.run.id, {
          i: item.i,
          j: item.j,
          rule: this.rule.name,
          grade: key,
          grader: this.o.grader,
          probability: item.probability,
          design: item.design,
        });
        this.mine.set(this.key(item), g);
        this.given.push(g);
        this.o.write(visibleControls(this.revealed(item, g)));
        return this.advance();
      }
      case 'skip':
      case 'next':
        return this.advance();
      case 'prev':
        if (this.pos > 0) this.pos--;
        await this.show();
        return true;
      case 'undo': {
        const last = this.given.pop();
        if (!last) {
          this.o.write('Nothing to undo in this session.\n');
          return true;
        }
        await this.o.store.grades.delete(this.o.run.id, last.id);
        // The grade it replaced (an earlier one of this grader), if any, counts again.
        const before = await this.o.store.grades.list(this.o.run.id, { rule: this.rule.name, grader: this.o.grader, i: last.i, j: last.j });
        const at = `${last.i},${last.j}`;
        if (before.length) this.mine.set(at, before[before.length - 1]);
        else this.mine.delete(at);
        this.o.write(`Undone: your ${verdictWord(last.grade === 'pass')} of output (i=${last.i}, j=${last.j}).\n`);
        const back = this.o.queue.findIndex((it) => it.i === last.i && it.j === last.j);
        if (back >= 0) this.pos = back;
        await this.show();
        return true;
      }
    }
  }

  private async advance(): Promise<boolean> {
    if (this.pos + 1 < this.o.queue.length) {
      this.pos++;
      await this.show();
      return true;
    }
    const left = this.o.queue.length - this.gradedInQueue;
    if (left === 0) {
      this.o.write(`End of the queue: all ${this.o.queue.length} graded.\n`);
      this.done = true;
      return false;
    }
    this.o.write(`End of the queue: ${left} not graded (skipped). Move back with ← (k), or q to quit.\n`);
    return true;
  }

  private async sample(item: QueueItem): Promise<SampleRecord | undefined> {
    const at = this.key(item);
    if (!this.samples.has(at)) this.samples.set(at, await this.o.store.samples.get(this.o.run.id, item.i, item.j));
    return this.samples.get(at);
  }

  /** The rule's verdict and reasons beside the person's grade, with agreement marked. */
  private revealed(item: QueueItem, g: GradeRecord): string {
    const cell = this.o.tensor.get(item.i, item.j, this.o.k);
    const who = this.rule.kind === 'verifier' ? 'judge' : 'rule';
    const s = this.samples.get(this.key(item));
    if (cell !== Outcome.PASS && cell !== Outcome.FAIL)
      return `  you: ${verdictWord(g.grade === 'pass')} · ${who}: no verdict (${s?.errors?.[this.o.k] ?? 'not checked'})\n`;
    const judge = cell === Outcome.PASS;
    const agree = judge === (g.grade === 'pass');
    const reasons = s?.reasons?.[this.o.k]?.join('; ');
    return `  you: ${verdictWord(g.grade === 'pass')} · ${who}: ${verdictWord(judge)} · ${agree ? '✓ agree' : '✗ DISAGREE'}${reasons ? ` · ${who}'s reasons: ${reasons}` : ''}\n`;
  }

  private async show(): Promise<void> {
    const item = this.o.queue[this.pos];
    if (!item) return;
    const s = await this.sample(item);
    const rule = this.rule;
    const graded = this.mine.get(this.key(item));
    const lines = [
      `── ${this.pos + 1} of ${this.o.queue.length} · output (i=${item.i}, j=${item.j}) · ${this.gradedInQueue} graded · rule ${rule.name}${rule.kind === 'verifier' ? ' (verifier)' : ''} · grader ${this.o.grader}`,
      `rule asks: ${ruleAsks(rule)}`,
      'input:',
      indent(inputText(this.o.run.inputs[item.i])),
      'output:',
      indent(s?.output ?? `(no output: ${s?.generationError ?? 'not stored'})`),
    ];
    if (graded) lines.push(this.revealed(item, graded).trimEnd().replace(/^ {2}/, 'graded: '));
    else lines.push(`${rule.kind === 'verifier' ? "judge's" : "rule's"} verdict: hidden until you grade`);
    lines.push('keys: p pass · f fail · s skip · u undo · ←/→ or j/k move · q quit');
    // What people and models wrote is shown with its bidi and control characters marked (a terminal would run an ESC sequence).
    this.o.write(`${this.o.clear ? '\x1b[2J\x1b[H' : '\n'}${visibleControls(lines.join('\n'))}\n`);
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

import { describe, expect, it } from 'vitest';
import { chunkDocument, sentenceWindows } from './chunk.js';
import { countWordTokens } from '../claims/text.js';

/** A long document of varied sentences (about 12 word tokens each). */
function doc(sentences: number): string {
  return Array.from({ length: sentences }, (_, i) => `Sentence ${i} says that river ${i % 13} flows past town number ${i * 7}.`).join(' ');
}

describe('chunkDocument', () => {
  it('makes 500–700-token chunks with 10–15% overlap, counted by the given tokenizer', () => {
    const text = doc(400);
    const { chunks } = chunkDocument(text, countWordTokens);
    expect(chunks.length).toBeGreaterThan(5);
    chunks.slice(0, -1).forEach((c) => {
      expect(c.tokens).toBeGreaterThanOrEqual(500);
      expect(c.tokens).toBeLessThanOrEqual(700);
      expect(countWordTokens(text.slice(c.start, c.end))).toBe(c.tokens);
    });
    for (let i = 1; i < chunks.length; i++) {
      const a = chunks[i - 1];
      const b = chunks[i];
      expect(b.start).toBeLessThan(a.end);
      const shared = countWordTokens(text.slice(b.start, a.end));
      expect(shared / a.tokens).toBeGreaterThanOrEqual(0.1);
      expect(shared / a.tokens).toBeLessThanOrEqual(0.15);
    }
    expect(chunks[0].start).toBe(0);
    expect(chunks.at(-1)!.end).toBe(text.length);
  });

  it('honours other sizes and overlaps in range and rejects those outside', () => {
    const text = doc(300);
    const { chunks } = chunkDocument(text, countWordTokens, { size: 500, overlap: 0.1 });
    for (const c of chunks.slice(0, -1)) expect(c.tokens).toBeLessThanOrEqual(500);
    expect(() => chunkDocument(text, countWordTokens, { size: 800 })).toThrow(/500–700/);
    expect(() => chunkDocument(text, countWordTokens, { overlap: 0.3 })).toThrow(/0.10–0.15/);
  });

  it('keeps a short document as one chunk and an empty one as none', () => {
    expect(chunkDocument('One short line.', countWordTokens).chunks).toEqual([{ start: 0, end: 15, tokens: 4 }]);
    expect(chunkDocument('   ', countWordTokens).chunks).toEqual([]);
  });

  it('covers every sentence of every chunk with windows that are never cut at chunk edges', () => {
    const text = doc(200);
    const { chunks, windows, chunkWindows } = chunkDocument(text, countWordTokens);
    chunks.forEach((c, i) => {
      const [from, to] = chunkWindows[i];
      expect(to).toBeGreaterThan(from);
      // every character of the chunk lies in one of its windows or in the whitespace between them
      expect(windows[from].start).toBeLessThanOrEqual(c.start);
      expect(windows[to - 1].end).toBeGreaterThanOrEqual(c.end);
      for (let w = from; w < to; w++) expect(text.slice(windows[w].start, windows[w].end)).toMatch(/^Sentence \d+ .*\.$/);
    });
  });
});

describe('sentenceWindows', () => {
  it('leaves no word of a document outside every window: headings, code, FAQ questions, tables, lead-ins', () => {
    const text = [
      '# Password help',
      '',
      'How do I reset my password? Open Settings and choose Reset.',
      '',
      'Steps:',
      '- Open the app',
      '- Tap **Reset**',
      '',
      '| Plan | Price |',
      '|---|---|',
      '| Pro | 12 USD |',
      '',
      '```',
      'assay reset --user alice',
      '```',
    ].join('\n');
    const windows = sentenceWindows(text, countWordTokens, 128);
    const covered = new Uint8Array(text.length);
    for (const w of windows) covered.fill(1, w.start, w.end);
    const missed = [...text].map((ch, i) => (/[\p{L}\p{N}]/u.test(ch) && !covered[i] ? ch : '')).join('');
    expect(missed).toBe('');
  });

  it('cuts a sentence longer than the limit into consecutive pieces within the limit', () => {
    const long = Array.from({ length: 300 }, (_, i) => `W${i}`).join(' ') + '.';
    const ws = sentenceWindows(`Short one. ${long} Tail.`, countWordTokens, 128);
    expect(ws[0].tokens).toBe(3);
    const pieces = ws.slice(1, -1);
    expect(pieces.length).toBe(Math.ceil(countWordTokens(long) / 128));
    for (const p of pieces) expect(p.tokens).toBeLessThanOrEqual(128);
    expect(pieces.reduce((s, p) => s + p.tokens, 0)).toBe(countWordTokens(long));
  });
});

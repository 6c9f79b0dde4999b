import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractText, htmlToText, pdfToText } from './extract.js';
import { minimalPdf } from './testing/pdf.js';

describe('htmlToText', () => {
  it('keeps visible text, drops scripts, styles and comments, decodes entities and keeps blocks apart', () => {
    const html = `<!doctype html><html><head><title>Rivers</title><style>p{color:red}</style>
      <script>var secret = "do not index";</script></head>
      <body><nav><a href="/">Home</a></nav><h1>The Nile</h1><p>The Nile is 6,650&nbsp;km long &amp; flows north.</p>
      <!-- hidden comment --><ul><li>Egypt</li><li>Sudan</li></ul><noscript>enable js</noscript></body></html>`;
    const text = htmlToText(html);
    expect(text).toContain('The Nile is 6,650 km long & flows north.');
    expect(text.startsWith('Rivers\n\nThe Nile')).toBe(true);
    expect(text).toMatch(/Egypt\n+Sudan/);
    for (const bad of ['secret', 'color:red', 'hidden comment', 'enable js', 'Home']) expect(text).not.toContain(bad);
  });
});

describe('pdfToText', () => {
  it('reads the text of a hand-written PDF', async () => {
    const text = await pdfToText(minimalPdf(['The bridge opened in 1932.', 'It spans (about) 500 metres.']));
    expect(text).toContain('The bridge opened in 1932.');
    expect(text).toContain('It spans (about) 500 metres.');
  });

  it('rejects bytes that are not a PDF with a message naming the file', async () => {
    await expect(pdfToText(new TextEncoder().encode('not a pdf at all'), 'notes.pdf')).rejects.toThrow(/notes\.pdf: not a readable PDF/);
  });
});

describe('extractText', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'assay-extract-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads .txt and .md as text and refuses unknown types', async () => {
    await writeFile(join(dir, 'a.md'), '\uFEFF# Title\r\n\r\nSome   text.\n\n\n\nMore.');
    expect(await extractText(join(dir, 'a.md'))).toBe('# Title\n\nSome text.\n\nMore.');
    await writeFile(join(dir, 'a.docx'), 'x');
    await expect(extractText(join(dir, 'a.docx'))).rejects.toThrow(/unsupported file type ".docx"/);
  });
});

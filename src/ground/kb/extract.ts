import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { lazyPackage } from '../../lazy.js';
import { importOptional, UsageError, thrownMessage } from '../../errors.js';

/** Text extraction for the knowledge base: .txt, .md (as is), .html/.htm (htmlparser2), .pdf (pdfjs-dist). */

export const SUPPORTED_EXTENSIONS = ['.txt', '.md', '.markdown', '.html', '.htm', '.pdf'] as const;

export function isSupported(path: string): boolean {
  return (SUPPORTED_EXTENSIONS as readonly string[]).includes(extname(path).toLowerCase());
}

/** Elements whose content is never document text. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'head', 'button', 'select', 'nav']);
/** Elements that end a block of text (a paragraph break in the output). */
const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'aside',
  'header',
  'footer',
  'li',
  'ul',
  'ol',
  'table',
  'tr',
  'td',
  'th',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'br',
  'hr',
  'dd',
  'dt',
  'figcaption',
  'title',
  'caption',
]);

// htmlparser2 loads with the first HTML document (start-up, docs/runner.md).
const htmlparser2 = lazyPackage<typeof import('htmlparser2')>('htmlparser2');

/** Visible text of an HTML document: scripts, styles and other non-text elements dropped, blocks kept as lines. */
export function htmlToText(html: string): string {
  const parts: string[] = [];
  let skipDepth = 0;
  let title = '';
  let inTitle = false;
  const { Parser } = htmlparser2();
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (SKIP.has(name)) skipDepth++;
        if (BLOCK.has(name)) parts.push('\n\n');
      },
      ontext(text) {
        if (inTitle) title += text;
        if (skipDepth === 0) parts.push(text);
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIP.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        if (BLOCK.has(name)) parts.push('\n\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  const body = tidy(parts.join(''));
  const t = tidy(title);
  // The title sits in <head> (skipped); keep it as a first line, unless the body repeats it.
  return t && !body.startsWith(t) ? `${t}\n\n${body}` : body;
}

/** Collapse runs of spaces inside lines and runs of blank lines, keeping paragraph breaks. */
function tidy(s: string): string {
  return s
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Text of a PDF, page by page (pages separated by a blank line), via Mozilla's pdf.js. */
export async function pdfToText(data: Uint8Array, file = 'PDF'): Promise<string> {
  const pdfjs = await importOptional('pdfjs-dist', `${file}: reading PDF files`, () => import('pdfjs-dist/legacy/build/pdf.mjs'));
  let doc;
  try {
    doc = await pdfjs.getDocument({ data, useSystemFonts: false, disableFontFace: true, isEvalSupported: false, verbosity: 0 }).promise;
  } catch (err) {
    throw new UsageError(`${file}: not a readable PDF (${thrownMessage(err)})`, { file });
  }
  try {
    const pages: string[] = [];
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(tidy(text));
    }
    return pages.filter((p) => p.length > 0).join('\n\n');
  } finally {
    await doc.destroy();
  }
}

/** Extract the text of one supported file. */
export async function extractText(path: string): Promise<string> {
  const ext = extname(path).toLowerCase();
  const buf = await readFile(path);
  switch (ext) {
    case '.pdf':
      return pdfToText(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), path);
    case '.html':
    case '.htm':
      return htmlToText(buf.toString('utf8'));
    case '.txt':
    case '.md':
    case '.markdown':
      return tidy(buf.toString('utf8').replace(/^\uFEFF/, ''));
    default:
      throw new UsageError(`${path}: unsupported file type "${ext}"; expected one of ${SUPPORTED_EXTENSIONS.join(', ')}`, { file: path });
  }
}

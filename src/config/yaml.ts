import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { IssuePath, Locate } from '../core/issues.js';
import { UsageError } from '../errors.js';

/**
 * A YAML document read with positions: its value, and the line of any field path in it (for config issues,
 * core/issues.ts). A syntax error is a UsageError `<file>:<line>:<col>: invalid YAML: …`. Used by every YAML a
 * user writes (configs, mock rules).
 */
export function readYaml(text: string, file: string): { raw: unknown; locate: Locate } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = e.linePos?.[0];
    const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
    const what = e.message.split('\n')[0].replace(/\s*at line \d+, column \d+:?\s*$/, '');
    throw new UsageError(`${where}: invalid YAML: ${what}`, { file, line: pos?.line });
  }
  return { raw: doc.toJS(), locate: (path) => yamlLine(doc, lineCounter, path) };
}

/** Line of the deepest node that exists along `path` (an unknown key's own line, if present). */
function yamlLine(doc: Document, lc: LineCounter, path: IssuePath): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const sub = path.slice(0, n) as (string | number)[];
    const parent = n > 0 ? doc.getIn(sub.slice(0, -1), true) : undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === sub[sub.length - 1]);
      const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
      if (range) return lc.linePos(range[0]).line;
    }
    const node = n === 0 ? doc.contents : doc.getIn(sub, true);
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (range) return lc.linePos(range[0]).line;
  }
  return undefined;
}

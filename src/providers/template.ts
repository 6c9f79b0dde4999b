import type { InputValue } from '../core/validator.js';

/**
 * Small text helpers shared by providers: `{{field}}` prompt templates, `data.choices[0].text` paths,
 * `${ENV_VAR}` references, and a canonical key for matching inputs.
 */

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** Splits `data.choices[0].text` (optionally prefixed `$.`) into keys and indices; throws on a malformed path. */
export function parsePath(path: string): (string | number)[] {
  const p = path.trim().replace(/^\$\.?/, '');
  if (p === '') return [];
  const parts: (string | number)[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[(?:"([^"]*)"|'([^']*)')\]/gy;
  let expectDot = false;
  let i = 0;
  while (i < p.length) {
    if (expectDot && p[i] === '.') i++;
    re.lastIndex = i;
    const m = re.exec(p);
    if (!m) throw new Error(`malformed path "${path}" at character ${i + 1}`);
    if (m[1] !== undefined) parts.push(m[1]);
    else if (m[2] !== undefined) parts.push(Number(m[2]));
    else parts.push(m[3] ?? m[4] ?? '');
    i = re.lastIndex;
    expectDot = true;
  }
  return parts;
}

/** Follows a parsed path into a JSON value; undefined when any step is missing. */
export function getPath(value: unknown, parts: (string | number)[]): unknown {
  let v = value;
  for (const key of parts) {
    if (v === null || typeof v !== 'object') return undefined;
    if (typeof key === 'number') {
      if (!Array.isArray(v)) return undefined;
      v = v[key];
    } else {
      v = (v as Record<string, unknown>)[key];
    }
  }
  return v;
}

/** Text of a value for a prompt: strings as they are, everything else as JSON. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Looks up a placeholder in an input: a field path of an object input, or `input` for the whole input.
 * Returns `{ found: false }` when the field does not exist.
 */
export function lookup(input: InputValue, name: string): { found: true; value: unknown } | { found: false } {
  if (typeof input !== 'string') {
    const v = getPath(input, parsePath(name));
    if (v !== undefined) return { found: true, value: v };
  }
  if (name === 'input') return { found: true, value: input };
  return { found: false };
}

/** Renders `{{field}}` placeholders with values from the input; throws naming the first missing field. */
export function renderTemplate(template: string, input: InputValue, encode: (s: string) => string = (s) => s): string {
  return template.replace(PLACEHOLDER, (_all, name: string) => {
    const r = lookup(input, name);
    if (!r.found) throw new Error(`template field {{${name}}} is not in the input (fields: ${fieldList(input)})`);
    return encode(asText(r.value));
  });
}

/**
 * Renders a JSON body template: a string leaf that is exactly one placeholder becomes that value with its
 * JSON type kept (`"{{input}}"` → the whole input object); other strings are interpolated as text.
 */
export function renderJsonTemplate(template: unknown, input: InputValue): unknown {
  if (typeof template === 'string') {
    const whole = /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(template);
    if (whole) {
      const r = lookup(input, whole[1]);
      if (!r.found) throw new Error(`template field {{${whole[1]}}} is not in the input (fields: ${fieldList(input)})`);
      return r.value;
    }
    return renderTemplate(template, input);
  }
  if (Array.isArray(template)) return template.map((t) => renderJsonTemplate(t, input));
  if (template && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) out[k] = renderJsonTemplate(v, input);
    return out;
  }
  return template;
}

function fieldList(input: InputValue): string {
  return typeof input === 'string' ? 'none: the input is a string; use {{input}}' : Object.keys(input).join(', ') || 'none';
}

/** Names of the `${VAR}` references in a string. */
export function envRefs(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
}

/** Replaces `${VAR}` with the variable's value; unset variables are reported by `envRefs` before this is called. */
export function expandEnv(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, name: string) => env[name] ?? '');
}

/** JSON with object keys sorted, so equal objects give equal strings whatever their key order. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Canonical key of an input for matching recordings and overrides: the text itself, or stable JSON of an object. */
export function inputKey(input: InputValue): string {
  return typeof input === 'string' ? input : stableStringify(input);
}

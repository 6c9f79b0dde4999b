import type { RE2JS } from 're2js';
import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';
import { lazyPackage } from '../lazy.js';
import { describeFound } from '../core/issues.js';

const re2js = lazyPackage<typeof import('re2js')>('re2js');

/**
 * Regular expressions of built-in checks, run by a linear-time engine (re2js, a port of RE2): the time to
 * match is proportional to the output's length whatever the pattern, so `^(a+)+$` cannot hang a run the way
 * JavaScript's backtracking engine does (33 s on 30 × "a" + "!"). Patterns keep JavaScript syntax and flags;
 * they are translated where the two differ (`\uXXXX`, `\s`, `.`, `[^]`), and what RE2 cannot express
 * (lookahead, backreferences) is a config error at load time.
 */
export interface LinearRegex {
  /** Whether the pattern matches anywhere in `text` (unanchored, like RegExp.test). */
  test(text: string): boolean;
  /** Non-overlapping matches in `text`, as String.matchAll with the g flag counts them. */
  count(text: string): number;
  /** `/pattern/flags` as written, for messages and reports. */
  readonly display: string;
}

const REGEX_OPTION_ERROR = Symbol.for('assay.RegexOptionError');

/** Why a pattern was refused, and which option is at fault. */
export class RegexOptionError extends AssayError {
  constructor(
    readonly field: 'pattern' | 'flags',
    message: string,
  ) {
    super(message, ExitCode.USAGE);
    this.name = 'RegexOptionError';
    setMarker(this, REGEX_OPTION_ERROR);
  }

  static override isInstance(err: unknown): err is RegexOptionError {
    return hasMarker(err, REGEX_OPTION_ERROR);
  }
}

// What JavaScript's \s matches (RE2's \s is ASCII only: [\t\n\f\r ]).
const JS_SPACE = '\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
// What JavaScript's . matches without the s flag (RE2's . excludes only \n).
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * JavaScript pattern syntax → RE2 syntax, for the constructs whose meaning or spelling differs. Everything
 * else is copied as it is; RE2 itself rejects what it cannot express.
 */
export function toRe2Syntax(pattern: string, flags: string): string {
  const dotAll = flags.includes('s');
  const unicode = flags.includes('u');
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === undefined) return out + c; // RE2 reports the trailing backslash
      if (!unicode && (e === 'p' || e === 'P' || (e === 'u' && pattern[i + 2] === '{'))) {
        out += e; // without the u flag, \p{L} and \u{41} are literal letters in JavaScript
        i++;
        continue;
      }
      if (e === 'u') {
        const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(i + 2, i + 10));
        if (braced) {
          out += `\\x{${braced[1]}}`;
          i += 1 + braced[0].length;
          continue;
        }
        const hex = pattern.slice(i + 2, i + 6);
        if (HEX4.test(hex)) {
          let cp = parseInt(hex, 16);
          const low = pattern.slice(i + 8, i + 12);
          // a surrogate pair written as two escapes is one code point
          if (
            cp >= 0xd800 &&
            cp <= 0xdbff &&
            pattern.slice(i + 6, i + 8) === '\\u' &&
            HEX4.test(low) &&
            parseInt(low, 16) >= 0xdc00 &&
            parseInt(low, 16) <= 0xdfff
          ) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (parseInt(low, 16) - 0xdc00);
            i += 6;
          }
          out += `\\x{${cp.toString(16)}}`;
          i += 5;
          continue;
        }
      }
      if (e === 'c' && /^[A-Za-z]$/.test(pattern[i + 2] ?? '')) {
        out += `\\x{${(pattern.charCodeAt(i + 2) & 31).toString(16)}}`;
        i += 2;
        continue;
      }
      if (e === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (e === 'S' && !inClass) out += `[^${JS_SPACE}]`;
      else out += c + e;
      i++;
      continue;
    }
    if (!inClass && c === '[') {
      // JavaScript's [] never matches and [^] matches anything; in RE2 a ] right after [ is a literal.
      if (pattern.startsWith('[]', i)) {
        out += '[^\\x{0}-\\x{10ffff}]';
        i += 1;
        continue;
      }
      if (pattern.startsWith('[^]', i)) {
        out += '[\\x{0}-\\x{10ffff}]';
        i += 2;
        continue;
      }
      inClass = true;
      out += c;
      continue;
    }
    if (inClass && c === ']') inClass = false;
    else if (!inClass && c === '.' && !dotAll) {
      out += JS_DOT;
      continue;
    }
    out += c;
  }
  return out;
}

function describeRe2Error(message: string): string {
  const reason = message.replace(/^error parsing regexp: /, '');
  if (/`\(\?[=!]/.test(reason)) return `lookahead is not available (${reason})`;
  if (/escape sequence: `\\[1-9k]/.test(reason)) return `backreferences are not available (${reason})`;
  if (/capture in lookbehind/.test(reason)) return `a lookbehind may not capture (${reason})`;
  return reason;
}

/**
 * Compiles a check's pattern. `flags` are JavaScript's: i, m and s are honoured, u is implied (RE2 reads
 * code points), g and y only say whether matches are counted (callers decide), d is ignored; v is refused.
 */
export function compileLinearRegex(pattern: string, flags: string): LinearRegex {
  let js: RegExp;
  try {
    js = new RegExp(pattern, flags);
  } catch (err) {
    throw new RegexOptionError(
      'pattern',
      `expected a valid regular expression, found ${describeFound(pattern)} with flags ${describeFound(flags)} (${(err as Error).message})`,
    );
  }
  if (flags.includes('v')) {
    throw new RegexOptionError(
      'flags',
      `expected flags among "imsuyg", found ${describeFound(flags)}: the v flag (set notation) is not supported by the linear-time regex engine`,
    );
  }
  const { RE2JS } = re2js();
  const re2Flags =
    (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) |
    (flags.includes('m') ? RE2JS.MULTILINE : 0) |
    (flags.includes('s') ? RE2JS.DOTALL : 0) |
    RE2JS.LOOKBEHINDS;
  let re: RE2JS;
  try {
    re = RE2JS.compile(toRe2Syntax(pattern, flags), re2Flags);
  } catch (err) {
    throw new RegexOptionError(
      'pattern',
      `expected a pattern the linear-time regex engine (RE2) can run, found ${describeFound(pattern)}: ${describeRe2Error((err as Error).message)}; ` +
        'RE2 has no lookahead or backreferences (so no pattern can take exponential time): rewrite the pattern, or use a sandboxed predicate',
    );
  }
  return {
    display: js.toString(),
    test: (text) => re.test(text),
    count: (text) => {
      let n = 0;
      for (const _ of re.matchAll(text)) n++;
      return n;
    },
  };
}

/**
 * The same engine for JSON Schema `pattern` and `patternProperties` (Ajv's `code.regExp` option), so a
 * schema cannot hang a run either. Ajv calls it with the flag "u".
 */
export const ajvRegExp = Object.assign(
  (pattern: string, flags: string) => {
    const re = compileLinearRegex(pattern, flags.replace(/[gy]/g, ''));
    // Ajv shares compiled patterns by their toString(): each needs its own.
    return { test: (s: string) => re.test(s), toString: () => re.display };
  },
  { code: 'assay-re2js' },
);

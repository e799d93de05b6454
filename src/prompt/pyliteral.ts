/**
 * `ast.literal_eval` over the literals lm-eval's templates render: Python reprs of
 * lists, tuples, dicts, strings, numbers, True/False/None. `doc_to_choice` templates
 * render a list repr that lm-eval parses back, and a digit-only or `[...]` target is
 * coerced the same way. Floats come back as `PyFloat`, tuples as arrays.
 */
import { PyFloat } from './jinja/values.ts';

export class PyLiteralError extends Error {}

export function literalEval(text: string): unknown {
  const p = new LiteralParser(text);
  p.ws();
  const value = p.value();
  p.ws();
  if (p.i < text.length) throw new PyLiteralError(`invalid syntax at offset ${p.i}`);
  return value;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };

class LiteralParser {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && ' \t\n\r\f\v'.includes(this.s[this.i]!)) this.i++;
  }

  value(): unknown {
    const c = this.s[this.i];
    if (c === '[') return this.sequence(']');
    if (c === '(') {
      const items = this.sequence(')');
      return items;
    }
    if (c === '{') return this.dict();
    if (c === "'" || c === '"') return this.strings();
    if (c !== undefined && /[rRuUbB]/.test(c) && /['"]/.test(this.s[this.i + 1] ?? '')) return this.strings();
    for (const [word, v] of [['True', true], ['False', false], ['None', null]] as const) {
      if (this.s.startsWith(word, this.i) && !/\w/.test(this.s[this.i + word.length] ?? '')) {
        this.i += word.length;
        return v;
      }
    }
    return this.number();
  }

  sequence(close: string): unknown[] {
    const out: unknown[] = [];
    this.i++;
    for (;;) {
      this.ws();
      if (this.s[this.i] === close) return this.i++, out;
      out.push(this.value());
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== close) throw new PyLiteralError(`expected ',' or '${close}' at offset ${this.i}`);
    }
  }

  dict(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') return this.i++, out;
      const key = this.value();
      this.ws();
      if (this.s[this.i] !== ':') throw new PyLiteralError(`expected ':' at offset ${this.i}`);
      this.i++;
      this.ws();
      out[String(key)] = this.value();
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== '}') throw new PyLiteralError(`expected ',' or '}' at offset ${this.i}`);
    }
  }

  /** Adjacent string literals concatenate, as in Python source. */
  strings(): string {
    let out = this.string();
    for (;;) {
      const save = this.i;
      this.ws();
      const c = this.s[this.i];
      if (c === "'" || c === '"') out += this.string();
      else return (this.i = save), out;
    }
  }

  string(): string {
    let raw = false;
    while (/[rRuUbB]/.test(this.s[this.i] ?? '')) {
      if (/[rR]/.test(this.s[this.i]!)) raw = true;
      this.i++;
    }
    const quote = this.s[this.i]!;
    const triple = this.s.startsWith(quote.repeat(3), this.i);
    const end = triple ? quote.repeat(3) : quote;
    this.i += end.length;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) throw new PyLiteralError('unterminated string');
      if (this.s.startsWith(end, this.i)) {
        this.i += end.length;
        return out;
      }
      const c = this.s[this.i]!;
      if (c === '\n' && !triple) throw new PyLiteralError('newline in string');
      if (c !== '\\') {
        out += c;
        this.i++;
        continue;
      }
      const e = this.s[this.i + 1] ?? '';
      if (raw) {
        out += c + e;
        this.i += 2;
        continue;
      }
      this.i += 2;
      if (e in ESCAPES) out += ESCAPES[e];
      else if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = this.s.slice(this.i, this.i + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw new PyLiteralError('truncated escape');
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        this.i += len;
      } else if (/[0-7]/.test(e)) {
        let oct = e;
        while (oct.length < 3 && /[0-7]/.test(this.s[this.i] ?? '')) oct += this.s[this.i++];
        out += String.fromCodePoint(Number.parseInt(oct, 8));
      } else out += `\\${e}`;
    }
  }

  number(): unknown {
    const m = /^[+-]?(?:\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?|\.\d[\d_]*(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+)/.exec(this.s.slice(this.i, this.i + 400));
    if (m === null) throw new PyLiteralError(`invalid syntax at offset ${this.i}`);
    const text = m[0].replaceAll('_', '');
    this.i += m[0].length;
    const body = text.replace(/^[+-]/, '');
    const sign = text.startsWith('-') ? -1 : 1;
    if (/^0[xXoObB]/.test(body)) return sign * Number(body.toLowerCase());
    if (/[.eE]/.test(body)) return new PyFloat(sign * Number(body));
    // Python 3 rejects leading zeros in a non-zero int ("03"), but "00" is 0.
    if (/^0\d/.test(body) && /[1-9]/.test(body)) throw new PyLiteralError('leading zeros in decimal integer literals are not permitted');
    const n = Number(body);
    return Number.isSafeInteger(n) ? sign * n : BigInt(text);
  }
}

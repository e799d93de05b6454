/**
 * A Python config dump as mmengine writes it (OpenCompass's `configs/<ts>.py`): top-level assignments
 * `name=value`, where a value is a literal (strings, numbers, True/False/None), a list, a tuple, a `{…}` dict or
 * a `dict(key=value, …)` call. Read as data, never run: any other expression (a call other than dict, an
 * operator) is refused with its line. Strings and numbers are read by literalEval, so escapes are Python's.
 */
import { BadInputError } from '../errors.ts';
import { literalEvalDocValue, plainNumbers } from './literalEval.ts';

interface Token {
  kind: 'literal' | 'name' | 'op';
  text: string;
  line: number;
}

const TOKEN = /(\s+|#[^\n]*)|([rRbBuU]{0,2}(?:'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))|(-?(?:\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))|([A-Za-z_][A-Za-z0-9_]*)|([()[\]{},=:])/y;

function tokenize(text: string, file: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (m === null) throw new BadInputError(`unexpected ${JSON.stringify(text[at])} in a config dump (only literals, lists, dicts and dict(...) are read)`, { file, line });
    if (m[2] !== undefined || m[3] !== undefined) tokens.push({ kind: 'literal', text: m[0], line });
    else if (m[4] !== undefined) tokens.push({ kind: 'name', text: m[4], line });
    else if (m[5] !== undefined) tokens.push({ kind: 'op', text: m[5], line });
    line += m[0].split('\n').length - 1;
  }
  return tokens;
}

export function readConfigDump(text: string, file: string): Record<string, unknown> {
  const tokens = tokenize(text, file);
  let i = 0;
  const fail = (what: string): never => {
    throw new BadInputError(`${what} in a config dump`, { file, line: tokens[Math.min(i, tokens.length - 1)]?.line });
  };
  const expect = (op: string) => {
    if (tokens[i]?.text !== op) fail(`expected '${op}'`);
    i++;
  };
  const sequence = (close: string, item: () => void) => {
    while (tokens[i]?.text !== close) {
      item();
      if (tokens[i]?.text === ',') i++;
      else if (tokens[i]?.text !== close) fail(`expected ',' or '${close}'`);
    }
    i++;
  };
  const value = (): unknown => {
    const t = tokens[i++];
    if (t === undefined) return fail('unexpected end');
    if (t.kind === 'literal') {
      // Adjacent string literals concatenate, as in Python.
      let out = plainNumbers(literalEvalDocValue(t.text));
      while (typeof out === 'string' && tokens[i]?.kind === 'literal') out += String(literalEvalDocValue(tokens[i++]!.text));
      return out;
    }
    if (t.text === '[' || t.text === '(') {
      const items: unknown[] = [];
      sequence(t.text === '[' ? ']' : ')', () => items.push(value()));
      return items;
    }
    if (t.text === '{') {
      const out: Record<string, unknown> = {};
      sequence('}', () => {
        const key = value();
        expect(':');
        out[String(key)] = value();
      });
      return out;
    }
    if (t.kind === 'name') {
      if (t.text === 'True' || t.text === 'False') return t.text === 'True';
      if (t.text === 'None') return null;
      if (t.text === 'dict' && tokens[i]?.text === '(') {
        i++;
        const out: Record<string, unknown> = {};
        sequence(')', () => {
          const key = tokens[i++];
          if (key?.kind !== 'name') fail('expected a keyword argument');
          expect('=');
          out[key!.text] = value();
        });
        return out;
      }
    }
    return fail(`not a literal: ${JSON.stringify(t.text)}`);
  };
  const out: Record<string, unknown> = {};
  while (i < tokens.length) {
    const name = tokens[i++]!;
    if (name.kind !== 'name') fail('expected an assignment');
    expect('=');
    out[name.text] = value();
  }
  return out;
}

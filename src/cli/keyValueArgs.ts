/**
 * `--model_args` and `--gen_kwargs` as lm-eval 0.4.13's CLI reads them (`MergeDictAction`
 * → `key_val_to_dict` → `handle_cli_value_string`, lm_eval/_cli/utils.py): a JSON object,
 * or `k=v` pairs split on the commas outside brackets and quotes, each value typed as
 * true/false (any case), an int (ASCII digits only: `-1` is not `isnumeric`, so it becomes
 * the float -1.0), a float (what Python's `float()` accepts), a Python literal
 * (`ast.literal_eval`: None, quoted strings, lists, dicts), else the text itself.
 * Both `lmaudit prompts` and `lmaudit run` parse through here.
 */
import { BadInputError } from '../errors.ts';
import { parsePyJson } from '../py/json.ts';
import { PyFloat } from '../py/values.ts';
import { literalEvalDocValue } from '../py/literalEval.ts';
import { isPlainObject } from '../util/json.ts';
import { pyFloat } from '../py/float.ts';

export function parseKeyValueArgs(text: string | undefined, flag: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let json: unknown;
  try {
    json = parsePyJson(text);
  } catch {
    if (text.includes('{')) throw new BadInputError(`${flag}: not valid JSON: ${text} (use double quotes for JSON strings)`);
  }
  if (isPlainObject(json)) return { ...json };
  const out: Record<string, unknown> = {};
  for (const item of splitTopLevel(text)) {
    const cut = item.indexOf('=');
    if (cut < 0) throw new BadInputError(`${flag}: expected key=value, got '${item}'`);
    out[item.slice(0, cut)] = cliValue(item.slice(cut + 1));
  }
  return out;
}

/** `handle_cli_value_string`. */
export function cliValue(arg: string): unknown {
  const lower = arg.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (/^[0-9]+$/.test(arg)) return Number.isSafeInteger(Number(arg)) ? Number(arg) : BigInt(arg);
  const float = pyFloat(arg);
  if (float !== null) return new PyFloat(float);
  try {
    return literalEvalDocValue(arg);
  } catch {
    return arg;
  }
}

/** `split_top_level`: commas outside brackets, braces and quotes; empty pieces dropped. */
function splitTopLevel(args: string): string[] {
  const parts: string[] = [];
  let buf = '';
  let depth = 0;
  let quote: string | null = null;
  for (const ch of args) {
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if ('[({'.includes(ch)) depth++;
    else if ('])}'.includes(ch)) depth = Math.max(depth - 1, 0);
    else if (ch === ',' && depth === 0) {
      parts.push(buf);
      buf = '';
      continue;
    }
    buf += ch;
  }
  parts.push(buf);
  return parts.filter((p) => p !== '');
}

/**
 * A comma-separated flag (--tasks, --extractors, --normalizers, --aggregations); undefined when absent. An empty list
 * (`--tasks "$UNSET"`, a stray comma) is refused: read as no filter it ran everything, and as no reading it printed
 * 'no cell to compute (the notes say why)' with no note.
 */
export function listFlag(value: string | undefined, flag: string): string[] | undefined {
  return value === undefined ? undefined : someOf(value.split(',').map((s) => s.trim()).filter((s) => s !== ''), value, flag);
}

/** The items a list flag's own splitter found (an extractor spec keeps its spaces), refused when there are none. */
export function someOf(items: string[], value: string, flag: string): string[] {
  if (items.every((s) => s.trim() === '')) throw new BadInputError(`${flag} '${value}' names nothing; leave the flag out for the default`, { field: flag });
  return items;
}

/** A true/false flag as lm-eval's CLI spells it (true/1/yes, false/0/no); null when absent. */
export function parseBool(text: string | boolean | undefined, flag: string): boolean | null {
  if (text === undefined) return null;
  // A bare flag (lm-eval's nargs="?" with const=True).
  if (text === true) return true;
  if (text === false) return false;
  if (/^(true|1|yes)$/i.test(text)) return true;
  if (/^(false|0|no)$/i.test(text)) return false;
  throw new BadInputError(`${flag} takes true or false, got '${text}'`);
}

/**
 * A whole-number flag (--num_fewshot, an int in lm-eval's argparse); null when absent. A fraction would reach the
 * few-shot sampler, which can draw no half example.
 */
export function parseCount(text: string | undefined, flag: string): number | null {
  if (text === undefined) return null;
  if (!/^\d+$/.test(text.trim())) throw new BadInputError(`${flag} takes a whole number ≥ 0, got '${text}'`);
  return Number(text.trim());
}

/** A non-negative number flag (--limit: a fraction below 1 takes that share); null when absent. */
export function parseNumber(text: string | undefined, flag: string): number | null {
  if (text === undefined) return null;
  const n = Number(text);
  if (text.trim() === '' || Number.isNaN(n) || n < 0) throw new BadInputError(`${flag} takes a non-negative number, got '${text}'`);
  return n;
}

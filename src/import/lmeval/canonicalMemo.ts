/**
 * What the canonical reading (canonicalRecord.ts) makes once a task rather than once a record: the rows'
 * fixed text for the task and request type, and the texts lm-eval repeats record after record (the metric
 * list, the generation settings, a metric's name as a field, a short target's sha256). A reader thread
 * keeps one for the whole import (samplesChunk.ts), so what it remembers is bounded (REMEMBERED).
 */
import { TOKEN, type CanonicalTokens } from '../../py/canonicalJson.ts';
import { ITEM, nameItem, RowTemplate, textField, VALUE_OF_NUMBER } from '../../store/rowLines.ts';
import { instanceLineTemplate } from '../../store/instanceLines.ts';
import { sha256Hex } from '../../util/hash.ts';
import { EXTRA_FIELD_PREFIX } from '../../store/schema.ts';

/** Distinct texts a memo's maps hold before they start again: a file whose every record differs costs a bounded amount of memory. */
const REMEMBERED = 1024;
/** Texts up to this long have their sha256 remembered (targets such as ' A' or ' 42' recur; a long one rarely does). */
const SHORT_TEXT = 64;

const json = JSON.stringify;

/**
 * `make(own)` for `key`, remembered in `map`: `own` is a copy of the key (a slice of a line, as a key or in the value,
 * would hold on to the line), and a map past REMEMBERED entries starts again.
 */
function remember<V>(map: Map<string, V>, key: string, make: (own: string) => V): V {
  let known = map.get(key);
  if (known === undefined) {
    if (map.size >= REMEMBERED) map.clear();
    const own = Buffer.from(key).toString();
    map.set(own, (known = make(own)));
  }
  return known;
}

const extraNameItem = (field: string) => nameItem(`${EXTRA_FIELD_PREFIX}${field}`);

/** One task and request type, for the whole import: the rows' fixed text and texts that repeat record after record, made once. */
export class CanonicalMemo {
  readonly metricLists = new Map<string, MetricList | null>();
  private readonly nameItems = new Map<string, string>();
  private readonly extraItems = new Map<string, string>();
  private readonly shortHashes = new Map<string, string>();
  readonly instances: RowTemplate;
  readonly responses: RowTemplate;
  readonly filtered: RowTemplate;
  readonly taskField: string;
  /** The rows' fixed text is ASCII (the task's name is). */
  readonly ascii: boolean;

  constructor(readonly task: string, readonly requestType: 'generate_until' | 'loglikelihood') {
    this.taskField = textField(task);
    // eslint-disable-next-line no-control-regex
    this.ascii = /^[\u0000-\u007f]*$/.test(this.taskField);
    const task_ = this.taskField;
    this.instances = instanceLineTemplate({ task: task_, group: '', request_type: textField(requestType), fewshot_doc_ids: '' });
    const none = { finish_reason: '', tokens_in: '', tokens_out: '', latency_ms: '', attempt: '', from_cache: '', error: '' };
    this.responses = RowTemplate.of('responses', requestType === 'generate_until' ? { task: task_, logprob: '', is_greedy: '', ...none } : { task: task_, text: '', ...none });
    this.filtered = RowTemplate.of('filtered', { task: task_ });
  }

  /** The metric list at token `k` (the one before it when the text is the same: lm-eval writes one list a task). */
  metricList(tok: CanonicalTokens, k: number): MetricList | null {
    const start = tok.start[k]!;
    const length = tok.end[k]! - start;
    // Compared with === on a slice (a block at a time), not startsWith (a character at a time).
    if (this.lastList !== undefined && this.lastListText.length === length && tok.text.slice(start, start + length) === this.lastListText) return this.lastList;
    // A copy of its own (a slice would hold on to its line, and compare slower).
    const text = Buffer.from(tok.text.slice(start, start + length)).toString();
    const known = remember(this.metricLists, text, () => metricListOf(tok, k, this));
    this.lastListText = text;
    this.lastList = known;
    return known;
  }

  private lastListText = '';
  private lastList: MetricList | null | undefined;
  private lastGen: readonly string[] = [];
  private lastGenKey = '[]';

  /** The generation settings of a record's requests as a key (the same, record after record, for a task). */
  genKey(gen: readonly string[]): string {
    if (gen.length !== this.lastGen.length || gen.some((g, i) => g !== this.lastGen[i])) {
      this.lastGen = gen;
      this.lastGenKey = json(gen);
    }
    return this.lastGenKey;
  }

  private readonly numberValueFields: string[] = [];

  /** The values field of `n` scores whose values are all recorded numbers. */
  numberValues(n: number): string {
    return (this.numberValueFields[n] ??= new Array<string>(n).fill(VALUE_OF_NUMBER).join(ITEM));
  }

  /** A metric's name, which recurs record after record, as an item of a packed score line (rowLines.ts nameItem). */
  nameItem(s: string): string {
    return remember(this.nameItems, s, nameItem);
  }

  /** An extra field's score name (its name after EXTRA_FIELD_PREFIX) as a packed item, by the field's name (a name made afresh each record was looked up slower). */
  extraItem(field: string): string {
    return remember(this.extraItems, field, extraNameItem);
  }

  /** sha256Hex of a text, remembered when it is short (a hash is a native call of about a microsecond, whatever the text). */
  sha256(text: string): string {
    return text.length > SHORT_TEXT ? sha256Hex(text) : remember(this.shortHashes, text, sha256Hex);
  }
}

export interface MetricList {
  names: string[];
  named: Set<string>;
  /** The list as OneTaskRecords compares it, and as the filtered table keeps it (JSON text). */
  key: string;
  /** The names as items of a packed score line (rowLines.ts nameItem), joined as the line holds them. */
  nameFields: string;
}

/** A metric list of strings (distinct): its names and its JSON; null otherwise. */
function metricListOf(tok: CanonicalTokens, list: number, memo: CanonicalMemo): MetricList | null {
  if (tok.kind[list] !== TOKEN.array) return null;
  const names: string[] = [];
  for (let k = list + 1; k < tok.next[list]!; k = tok.next[k]!) {
    if (tok.kind[k] !== TOKEN.string) return null;
    names.push(tok.string(k));
  }
  const named = new Set(names);
  // A name listed twice: the reference reading settles what that means.
  if (named.size !== names.length) return null;
  return { names, named, key: json(names), nameFields: names.map((n) => memo.nameItem(n)).join(ITEM) };
}

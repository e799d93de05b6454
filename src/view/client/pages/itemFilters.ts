/// <reference lib="dom" />
/**
 * The items page's filters, as a form whose values become the page's URL: correct or
 * incorrect under a reading, flipped between two readings, nothing extracted, stopped at the
 * token limit, text in the prompt, response or gold, a metadata field's value, and the sort.
 */
import { h, href, type Params, type VNode } from '../ui.ts';

function select(name: string, value: unknown, options: [string, string][], label: string): VNode {
  return h('label', null, `${label} `, h('select', { name, value: value === undefined || value === null ? '' : String(value), onChange: submit }, options.map(([v, text]) => h('option', { value: v }, text))));
}

function submit(event: Event): void {
  (event.currentTarget as HTMLElement).closest('form')?.requestSubmit();
}

export function Filters(props: { params: Params; cells: { extractor: string; normalizer: string }[]; metaFields: string[]; metaNote: string | null }): VNode {
  const p = props.params;
  const readings: [string, string][] = [['', '—'], ...props.cells.map((c, k): [string, string] => [String(k), `r${k} ${c.extractor}/${c.normalizer}`])];
  const [flipA, flipB] = String(p.flip ?? ',').split(',');
  const rightOnly = String(p.rightonly ?? '').split(',').filter((x) => /^\d+$/.test(x)).map(Number);
  const reading = (k: number) => (props.cells[k] ? `r${k} ${props.cells[k]!.extractor}/${props.cells[k]!.normalizer}` : `r${k}`);
  const sorts: [string, string][] = [
    ['pos', 'document order'], ['doc_id', 'doc id'], ['target', 'gold'], ['response', 'response'], ['response_length', 'response length'], ['finish_reason', 'stop reason'],
    ...props.cells.flatMap((c, k): [string, string][] => [[`v${k}`, `r${k} value`], [`e${k}`, `r${k} extracted`]]),
  ];
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const get = (k: string) => String(form.get(k) ?? '');
    const flip = get('flipA') !== '' && get('flipB') !== '' ? `${get('flipA')},${get('flipB')}` : '';
    location.hash = href('items', {
      s: p.s, run: p.run, task: p.task,
      cell: get('cell'), verdict: get('cell') === '' ? '' : get('verdict'), flip, rightonly: get('rightonly'), noanswer: get('noanswer'),
      truncated: form.get('truncated') ? '1' : '', q: get('q'), in: get('q') === '' ? '' : get('in'),
      meta: get('meta'), mv: get('meta') === '' ? '' : get('mv'), sort: get('sort') === 'pos' ? '' : get('sort'), desc: form.get('desc') ? '1' : '',
    });
  };
  return h(
    'form',
    { class: 'filters', onSubmit, key: JSON.stringify(p) },
    h('div', null,
      select('cell', p.cell, readings, 'Reading'),
      select('verdict', p.verdict, [['', 'any verdict'], ['correct', 'correct'], ['incorrect', 'incorrect']], ''),
      ' · Flipped between ', select('flipA', flipA, readings, ''), select('flipB', flipB, readings, ' and'),
      ' · ', select('noanswer', p.noanswer, readings, 'Nothing extracted by'),
      ' · ', h('label', null, h('input', { type: 'checkbox', name: 'truncated', checked: p.truncated === '1', onChange: submit }), ' stopped at the token limit'),
    ),
    rightOnly.length === 2
      ? h('div', { id: 'rightonly-filter' },
          h('input', { type: 'hidden', name: 'rightonly', value: String(p.rightonly) }),
          `Right under ${reading(rightOnly[0]!)} and wrong under ${reading(rightOnly[1]!)} (a discordant cell of the McNemar table) `,
          h('a', { href: href('items', { ...p, rightonly: '' }) }, 'drop this filter'))
      : null,
    h('div', null,
      // Text fields are uncontrolled (defaultValue): the form is drawn again when the list's answer arrives, and a
      // controlled value would put the URL's text back over what the user has typed meanwhile.
      h('input', { id: 'search', type: 'search', name: 'q', defaultValue: p.q ?? '', placeholder: 'search text (/)', 'aria-label': 'search text' }),
      select('in', p.in ?? 'any', [['any', 'prompt, response or gold'], ['prompt', 'prompt'], ['response', 'response'], ['gold', 'gold']], ' in'),
      ' · ', select('meta', p.meta, [['', '—'], ...props.metaFields.map((f): [string, string] => [f, f])], 'Field'),
      h('input', { name: 'mv', defaultValue: p.mv ?? '', placeholder: 'value', 'aria-label': 'field value' }),
      props.metaNote === null ? null : h('span', { class: 'small muted', id: 'meta-note' }, ` (${props.metaNote})`),
      ' · ', select('sort', p.sort ?? 'pos', sorts, 'Sort by'),
      h('label', null, h('input', { type: 'checkbox', name: 'desc', checked: p.desc === '1', onChange: submit }), ' descending'),
      ' ', h('button', { type: 'submit' }, 'Apply'),
    ),
  );
}

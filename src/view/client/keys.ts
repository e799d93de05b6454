/// <reference lib="dom" />
/**
 * The keyboard: j/k between items, Enter to open, Esc back, / to search. The page on screen
 * says what j, k and Enter do (setKeys); Esc and / are the same everywhere. Keys typed into a
 * field are the field's, except Esc, which leaves it.
 *
 * A key that moves to another page (Esc, Enter, j/k on an item) changes the address at once,
 * but the browser announces it (hashchange) and the next page is drawn a moment later: keys
 * typed in between are held and replayed on the page they were typed for, so `Esc / text`
 * typed at speed searches the list instead of reaching the page being left.
 */
export interface PageKeys {
  next?: () => void;
  previous?: () => void;
  open?: () => void;
}

let current: PageKeys = {};
let moving = false;
let held: { key: string }[] = [];
let giveUp: ReturnType<typeof setTimeout> | undefined;

export function setKeys(keys: PageKeys): void {
  current = keys;
}

/** The field keys land in, if any. */
function field(): HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement | null {
  const el = document.activeElement as HTMLElement | null;
  return el !== null && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') ? (el as HTMLInputElement) : null;
}

function startMoving(): void {
  moving = true;
  clearTimeout(giveUp);
  // history.back() with nowhere to go never announces anything: stop holding keys then.
  giveUp = setTimeout(release, 1000);
}

/** The next page is drawn (the router's own hashchange handler ran first): replay what was typed meanwhile. */
function release(): void {
  clearTimeout(giveUp);
  moving = false;
  const keys = held;
  held = [];
  for (const k of keys) {
    if (moving) {
      held.push(k);
      continue;
    }
    replay(k.key);
  }
}

/** A held key as the browser would have handled it on the new page. */
function replay(key: string): void {
  const f = field();
  if (f !== null && key !== 'Escape') {
    if (f instanceof HTMLInputElement || f instanceof HTMLTextAreaElement) {
      if (key.length === 1) f.setRangeText(key, f.selectionStart ?? f.value.length, f.selectionEnd ?? f.value.length, 'end');
      else if (key === 'Backspace' && f.value.length > 0) f.value = f.value.slice(0, -1);
      else if (key === 'Enter') f.form?.requestSubmit();
    }
    return;
  }
  act(key);
}

/** What a key does outside a field; true when it did something. */
function act(key: string): boolean {
  const f = field();
  if (key === 'Escape') {
    if (f !== null) f.blur();
    else {
      startMoving();
      history.back();
    }
    return true;
  }
  if (key === '/') {
    const search = document.getElementById('search') as HTMLInputElement | null;
    if (search === null) return false;
    search.focus();
    return true;
  }
  const action = { j: current.next, k: current.previous, Enter: current.open }[key];
  if (action === undefined) return false;
  const before = location.hash;
  action();
  if (location.hash !== before) startMoving();
  return true;
}

export function installKeys(): void {
  window.addEventListener('hashchange', () => {
    // A task later: the router's own hashchange listener has set the new page and Preact has drawn it by then.
    if (moving) setTimeout(release, 0);
  });
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (moving && (event.key.length === 1 || ['Enter', 'Escape', 'Backspace'].includes(event.key))) {
      held.push({ key: event.key });
      event.preventDefault();
      return;
    }
    if (field() !== null && event.key !== 'Escape') return;
    if (act(event.key)) event.preventDefault();
  });
}

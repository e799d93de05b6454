/// <reference lib="dom" />
/**
 * The keyboard: j/k between items, Enter to open, Esc back, / to search. The page on screen
 * says what j, k and Enter do (setKeys); Esc and / are the same everywhere. Keys typed into a
 * field are the field's, except Esc, which leaves it.
 */
export interface PageKeys {
  next?: () => void;
  previous?: () => void;
  open?: () => void;
}

let current: PageKeys = {};

export function setKeys(keys: PageKeys): void {
  current = keys;
}

export function installKeys(): void {
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement | null;
    const typing = target !== null && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT');
    if (event.key === 'Escape') {
      if (typing) target!.blur();
      else history.back();
      event.preventDefault();
      return;
    }
    if (typing) return;
    const act = { j: current.next, k: current.previous, Enter: current.open }[event.key];
    if (event.key === '/') {
      const search = document.getElementById('search') as HTMLInputElement | null;
      if (search !== null) {
        search.focus();
        event.preventDefault();
      }
    } else if (act !== undefined) {
      act();
      event.preventDefault();
    }
  });
}

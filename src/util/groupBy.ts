/**
 * Appends `value` to the list kept under `key`. (Rebuilding the list with a spread on
 * every append is quadratic: a million items in a few groups took minutes.)
 */
export function pushTo<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [value]);
  else list.push(value);
}

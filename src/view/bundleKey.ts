/**
 * The name of one API answer in a static bundle: the route and its parameters in sorted
 * order (what the browser asks for and what the bundle writer wrote must meet), and the
 * data file that holds it, named by a hash so that no parameter becomes part of a path.
 */
export function bundleKey(route: string, params: URLSearchParams): string {
  const sorted = [...params.entries()].filter(([, v]) => v !== '').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${route}?${new URLSearchParams(sorted).toString()}`;
}

/** FNV-1a (two 32-bit lanes): the same in the browser and in Node, with no crypto API needed on file://. */
export function bundleFile(key: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return `${h1.toString(16).padStart(8, '0')}${h2.toString(16).padStart(8, '0')}.js`;
}

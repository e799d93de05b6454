/** A count and its noun in the number the count takes: '1 item', '0 items', '2 items'. */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

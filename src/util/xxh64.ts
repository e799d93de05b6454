/**
 * XXH64 (seed 0 by default), as 16 lower-case hex digits: lighteval's summary hashes are xxhash.xxh64 of the UTF-8
 * bytes (e.g. of each doc.query). The algorithm of the xxHash specification, in BigInt arithmetic mod 2^64.
 */
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;
const MASK = 0xffffffffffffffffn;

const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & MASK;
const round = (acc: bigint, lane: bigint) => (rotl((acc + lane * P2) & MASK, 31n) * P1) & MASK;
const merge = (acc: bigint, v: bigint) => ((((acc ^ round(0n, v)) * P1) & MASK) + P4) & MASK;

export function xxh64(input: string | Uint8Array, seed = 0n): string {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
  const n = bytes.length;
  let i = 0;
  let h: bigint;
  if (n >= 32) {
    let v1 = (seed + P1 + P2) & MASK;
    let v2 = (seed + P2) & MASK;
    let v3 = seed;
    let v4 = (seed - P1) & MASK;
    for (; i + 32 <= n; i += 32) {
      v1 = round(v1, bytes.readBigUInt64LE(i));
      v2 = round(v2, bytes.readBigUInt64LE(i + 8));
      v3 = round(v3, bytes.readBigUInt64LE(i + 16));
      v4 = round(v4, bytes.readBigUInt64LE(i + 24));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = (seed + P5) & MASK;
  }
  h = (h + BigInt(n)) & MASK;
  for (; i + 8 <= n; i += 8) h = ((rotl(h ^ round(0n, bytes.readBigUInt64LE(i)), 27n) * P1) & MASK) + P4 & MASK;
  if (i + 4 <= n) {
    h = ((rotl(h ^ ((BigInt(bytes.readUInt32LE(i)) * P1) & MASK), 23n) * P2) & MASK) + P3 & MASK;
    i += 4;
  }
  for (; i < n; i++) h = (rotl(h ^ ((BigInt(bytes[i]!) * P5) & MASK), 11n) * P1) & MASK;
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h.toString(16).padStart(16, '0');
}

/**
 * Harness versions inferred as ranges. Without `lm_eval_version` the importer infers lm-eval's version from the
 * file layout as a range ('0.4.3–0.4.9', '≥0.4.10', '≤0.4.2', 'v0.3.x'). Two equal ranges are not one version
 * (Qwen2.5-7B's results-0.4.3 and results-0.4.8 folders both read '0.4.3–0.4.9' and were "same"), and a range that
 * holds the other side's version is not another one (lm-eval 0.4.13 against '≥0.4.10' was "differs"): either way
 * the records cannot tell. Ranges that do not overlap do differ, as the plain comparison says.
 */

type Version = readonly number[];

interface VersionRange {
  /** Lowest version in the range (null: no bound). */
  lo: Version | null;
  /** Highest (null: no bound). */
  hi: Version | null;
  /** One version, not a range. */
  point: boolean;
}

const parts = (s: string): Version | null => {
  const m = /^v?(\d+(?:\.\d+)*)$/.exec(s.trim());
  return m === null ? null : m[1]!.split('.').map(Number);
};

/** The range a recorded or inferred version names, or null where it names none that can be compared. */
export function versionRange(value: unknown): VersionRange | null {
  if (typeof value !== 'string') return null;
  const t = value.trim();
  let m: RegExpExecArray | null;
  if ((m = /^≥\s*(\S+)$/.exec(t)) !== null) return bounded(parts(m[1]!), 'lo');
  if ((m = /^≤\s*(\S+)$/.exec(t)) !== null) return bounded(parts(m[1]!), 'hi');
  if ((m = /^v?(\d+(?:\.\d+)*)\.x$/.exec(t)) !== null) {
    const v = parts(m[1]!)!;
    return { lo: [...v, 0], hi: [...v, Number.POSITIVE_INFINITY], point: false };
  }
  if ((m = /^(\S+)\s*–\s*(\S+)$/.exec(t)) !== null) {
    const [lo, hi] = [parts(m[1]!), parts(m[2]!)];
    return lo === null || hi === null ? null : { lo, hi, point: false };
  }
  const v = parts(t);
  return v === null ? null : { lo: v, hi: v, point: true };
}

function bounded(v: Version | null, side: 'lo' | 'hi'): VersionRange | null {
  if (v === null) return null;
  return side === 'lo' ? { lo: v, hi: null, point: false } : { lo: null, hi: v, point: false };
}

/** Numeric order of two versions, missing parts read as 0 (0.4 = 0.4.0). */
function order(a: Version, b: Version): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Whether a recorded or inferred version is `min` or later: 'maybe' where it names no version, or a range that holds
 * versions on both sides of `min` (a checker of a release's rule must then not claim the rule was or was not applied).
 */
export function versionAtLeast(value: unknown, min: Version): 'yes' | 'no' | 'maybe' {
  const r = versionRange(value);
  if (r === null) return 'maybe';
  if (r.lo !== null && order(r.lo, min) >= 0) return 'yes';
  if (r.hi !== null && order(r.hi, min) < 0) return 'no';
  return 'maybe';
}

/**
 * Where a side's version is a range that overlaps the other's: which side(s) the records leave unknown and why;
 * null where the plain comparison holds (two single versions, disjoint ranges, or a value that names no range).
 */
export function overlappingVersions(a: unknown, b: unknown): { verdict: 'unknown in A' | 'unknown in B' | 'unknown in both'; detail: string } | null {
  const [ra, rb] = [versionRange(a), versionRange(b)];
  if (ra === null || rb === null || (ra.point && rb.point)) return null;
  const below = (x: VersionRange, y: VersionRange) => x.hi !== null && y.lo !== null && order(x.hi, y.lo) < 0;
  if (below(ra, rb) || below(rb, ra)) return null;
  if (!ra.point && !rb.point) {
    return { verdict: 'unknown in both', detail: `each side's version is a range inferred from the file layout (A ${a}, B ${b}), and the ranges overlap: the two may be the same release or not` };
  }
  const [range, point, side] = ra.point ? [b, a, 'B'] : [a, b, 'A'];
  return { verdict: `unknown in ${side}` as 'unknown in A' | 'unknown in B', detail: `${side}'s version is a range inferred from the file layout (${range}) that holds the other's ${point}: it may be that release or another` };
}

/** What harnessVersionRanges reads and writes of a settings row (settingsDiff.ts's FieldRow). */
interface Row {
  field: string;
  verdict: string;
  a: { status: string; value?: unknown };
  b: { status: string; value?: unknown };
  partial?: string;
  evidence?: string;
}

/**
 * The harness item's version row where a side's version is a range: unknown where the ranges overlap (the versions
 * of one harness; two programs' versions do not compare, and their row stays as the plain comparison left it), and
 * settled where both runs recorded the same commit, one commit being one release (asdiv at batch sizes 8 and 1, both
 * '0.4.3–0.4.9', both at one git_hash).
 */
export function harnessVersionRanges(fields: Row[]): void {
  const [name, version, commit] = ['name', 'version', 'commit'].map((f) => fields.find((r) => r.field === f));
  if (version === undefined || version.a.status === 'unknown' || version.b.status === 'unknown' || name?.verdict !== 'same') return;
  const overlap = overlappingVersions(version.a.value, version.b.value);
  if (overlap === null) return;
  if (commit?.verdict === 'same') {
    version.verdict = 'same in effect';
    version.evidence = `the same harness commit (${String(commit.a.value)}) in both runs`;
    return;
  }
  version.verdict = overlap.verdict;
  version.partial = overlap.detail;
}

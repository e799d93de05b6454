/**
 * The complementary error function to (nearly) full double precision, for normal tail
 * probabilities. `1 − erf(x)` from simple-statistics' 7-digit approximation loses every digit
 * of a small tail (it printed p < 1e-300 for a z of 9.33, whose p is 1.07e-20, and 1.89e-15 for
 * one of 1.93e-15); scipy's `norm.sf`, which lm-eval's model_comparator uses, keeps them.
 *
 * Below 0.9 the positive-term series erf(x) = 2/√π · e^(−x²) · Σ (2x²)ⁿ x / (1·3·…·(2n+1))
 * (no cancellation, and erfc ≥ 0.2 there, so 1 − erf loses nothing); above it the continued
 * fraction erfc(x) = e^(−x²)/√π · 1/(x + ½/(x + 1/(x + 3⁄2/(x + …))))
 * evaluated by the modified Lentz method. Written here rather than taken from @stdlib/math-base-special-erfc
 * (FreeBSD's erfc, as precise): that one function installs 145 packages.
 */
const SQRT_PI = Math.sqrt(Math.PI);
const TINY = 1e-300;
const SERIES_BELOW = 0.9;

export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < SERIES_BELOW) return 1 - erfSeries(x);
  if (x > 27.3) return 0; // e^(−x²) underflows below the smallest double
  return (Math.exp(-x * x) / SQRT_PI) * lentzFraction(x);
}

function erfSeries(x: number): number {
  const twoX2 = 2 * x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 500; n++) {
    term *= twoX2 / (2 * n + 1);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return (2 / SQRT_PI) * Math.exp(-x * x) * sum;
}

/** 1/(x + a₁/(x + a₂/(x + …))) with aₙ = n/2. */
function lentzFraction(x: number): number {
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 5000; n++) {
    const a = n / 2;
    d = x + a * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = x + a / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return 1 / f;
}

/** Two-sided normal p-value 2·(1 − Φ(|z|)) = erfc(|z|/√2), as scipy's `2 * norm.sf(abs(z))`. */
export function twoSidedNormalP(z: number): number {
  return erfc(Math.abs(z) / Math.SQRT2);
}

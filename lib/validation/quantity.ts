/**
 * Kubernetes resource quantities (`100m`, `1.5`, `64Mi`, `1e3`), parsed exactly as a fraction so that requests
 * and limits compare without rounding.
 *
 * @see https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
 */
export interface Quantity {
  /** The text as written. */
  readonly text: string;
  /** The suffix as written: `''`, a decimal SI suffix (`m`, `k`, `M`...), a binary one (`Ki`, `Mi`...) or an exponent. */
  readonly suffix: string;
  /** Value = numerator / denominator. */
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Parses a quantity given as a string or a YAML number; undefined when it is not valid quantity syntax. */
export function parseQuantity(value: string | number): Quantity | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, sign, digits, suffix = ''] = m;
  const [int, frac = ''] = digits.split('.');
  let numerator = BigInt(`${int || '0'}${frac}`) * (sign === '-' ? -1n : 1n);
  let denominator = 10n ** BigInt(frac.length);
  let exp10 = 0;
  if (suffix in BINARY) numerator *= 2n ** BigInt(BINARY[suffix]);
  else if (suffix in DECIMAL) exp10 = DECIMAL[suffix];
  else exp10 = Number(suffix.slice(1));
  if (exp10 >= 0) numerator *= 10n ** BigInt(exp10);
  else denominator *= 10n ** BigInt(-exp10);
  return { text, suffix, numerator, denominator };
}

/** Compares two quantities exactly: negative when a < b, 0 when equal, positive when a > b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const l = a.numerator * b.denominator;
  const r = b.numerator * a.denominator;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** True for the `m`, `u` and `n` suffixes: fractions of a unit, which make sense for CPU and never for bytes. */
export function hasSubUnitSuffix(q: Quantity): boolean {
  return q.suffix === 'm' || q.suffix === 'u' || q.suffix === 'n';
}

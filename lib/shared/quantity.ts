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

/** A value as messages show it: strings quoted, at most 80 characters. */
function showValue(v: string | number): string {
  const s = typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/**
 * Why `q` (written `raw`) is not a byte count: a `m`, `u` or `n` suffix means thousandths (millionths...) of a
 * byte, so `400m` is 0.4 bytes. Undefined when it is fine. Shared by the config schema and the output validator.
 */
export function byteQuantityProblem(name: string, raw: string | number, q: Quantity): string | undefined {
  if (!hasSubUnitSuffix(q)) return undefined;
  const bytes = Number(q.numerator) / Number(q.denominator);
  return `${name} ${showValue(raw)} is ${bytes} bytes: the '${q.suffix}' suffix means thousandths for bytes; `
    + `write ${q.suffix === 'm' ? `'${q.text.slice(0, -1)}Mi'` : "a size such as '64Mi'"}`;
}

/** The message for a request above its limit, which the API server rejects. Shared by the config schema and the output validator. */
export function requestAboveLimitProblem(name: string, req: Quantity, lim: Quantity): string {
  return `${name} request ${showValue(req.text)} is above its limit ${showValue(lim.text)}; the API server rejects it. `
    + 'Lower the request or raise the limit';
}

/** True when `q` is greater than zero. */
export function isPositiveQuantity(q: Quantity): boolean {
  return q.numerator > 0n;
}

import { compareQuantities, hasSubUnitSuffix, parseQuantity } from '../../lib/shared/quantity';

const q = (s: string | number) => parseQuantity(s)!;

test('parses decimal, binary and exponent suffixes exactly', () => {
  expect(compareQuantities(q('1Gi'), q('1024Mi'))).toBe(0);
  expect(compareQuantities(q('1G'), q('1Gi'))).toBeLessThan(0);
  expect(compareQuantities(q('500m'), q(0.5))).toBe(0);
  expect(compareQuantities(q('1e3'), q('1k'))).toBe(0);
  expect(compareQuantities(q('.5'), q('499m'))).toBeGreaterThan(0);
});

test('rejects what is not quantity syntax, and spots sub-unit suffixes', () => {
  expect(['', 'lots', '1gi', '1.2.3', '1 Gi', 'Mi'].map((s) => parseQuantity(s))).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  expect([hasSubUnitSuffix(q('400m')), hasSubUnitSuffix(q('400Mi')), hasSubUnitSuffix(q('5'))]).toEqual([true, false, false]);
});

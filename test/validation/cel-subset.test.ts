import { compileCelRule } from '../../lib/validation/cel-subset';

test('evaluates the rule forms the pinned CRDs use', () => {
  const exclusive = compileCelRule('!(has(self.imageCatalogRef) && has(self.imageName))')!;
  expect([exclusive({ imageName: 'a' }), exclusive({ imageName: 'a', imageCatalogRef: {} })]).toEqual([true, false]);
  const locale = compileCelRule("!has(self.builtinLocale) || self.localeProvider == 'builtin'")!;
  expect([locale({}), locale({ builtinLocale: 'C', localeProvider: 'icu' }), locale({ builtinLocale: 'C', localeProvider: 'builtin' })]).toEqual([true, false, true]);
  const sizes = compileCelRule("self.d != 'preferred' || (!has(self.pre) || self.pre.size() == 0)")!;
  expect([sizes({ d: 'required' }), sizes({ d: 'preferred', pre: ['a'] }), sizes({ d: 'preferred', pre: [] })]).toEqual([true, false, true]);
  expect(compileCelRule('self > 0')!(0)).toBe(false);
});

test('leaves transition rules, unknown syntax and unset fields to the API server', () => {
  expect(compileCelRule('self == oldSelf')).toBeUndefined();
  expect(compileCelRule('self.all(x, x > 0)')).toBeUndefined();
  expect(compileCelRule("self.mode == 'x'")!({})).toBe(true);
});

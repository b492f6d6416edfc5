 
const { compareTrees } = require('../../scripts/check-generated') as {
  compareTrees: (expected: Map<string, Buffer>, actual: Map<string, Buffer>) => string[];
};

const tree = (files: Record<string, string>) => new Map(Object.entries(files).map(([f, c]) => [f, Buffer.from(c)]));

describe('scripts/check-generated.js', () => {
  test('identical trees have no differences', () => {
    expect(compareTrees(tree({ 'a.ts': 'x', 'b/c.ts': 'y' }), tree({ 'a.ts': 'x', 'b/c.ts': 'y' }))).toEqual([]);
  });

  test('names every changed, missing and extra file, sorted by path', () => {
    const committed = tree({ 'a.ts': 'x', 'b.ts': 'old', 'gone.ts': 'z' });
    const generated = tree({ 'a.ts': 'x', 'b.ts': 'new', 'added.ts': 'w' });
    expect(compareTrees(committed, generated)).toEqual([
      '  + added.ts (generated, not committed)',
      '  ~ b.ts (differs)',
      '  - gone.ts (committed, not generated)',
    ]);
  });
});

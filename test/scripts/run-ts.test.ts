import * as fs from 'fs';
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadBundle, root } = require('../../scripts/run-ts') as {
  root: string;
  loadBundle: (entry: string, transform: (s: string) => string, o: { externalPackages: boolean }) => { code: string; codeCache?: string };
};

const asConfig = { externalPackages: true };

/** A config module under .build/ (inside the project, so its lib/ imports resolve), removed after the test. */
function tempConfig(body: string): string {
  fs.mkdirSync(path.join(root, '.build'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, '.build', 'test-config-'));
  const file = path.join(dir, 'homelab.config.ts');
  fs.writeFileSync(file, body);
  return file;
}

describe('scripts/run-ts.js bundle cache', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  test('a config bundle is reused while its inputs are unchanged and rebuilt when one changes', () => {
    // GIVEN a config that imports a lib/ helper
    const file = tempConfig("import { REFERENCE_HOMELAB } from '../../lib/config/defaults';\nexport default { ...REFERENCE_HOMELAB, marker: 1 };\n");
    dirs.push(path.dirname(file));
    // WHEN it is bundled twice
    const first = loadBundle(file, (s) => s, asConfig);
    const second = loadBundle(file, (s) => s, asConfig);
    // THEN the second is the cached first: same build, same code cache file
    expect(second.code).toBe(first.code);
    expect(second.codeCache).toBe(first.codeCache);
    expect(first.code).toContain('marker:1}');
    // WHEN the config changes (size and mtime)
    fs.writeFileSync(file, "import { REFERENCE_HOMELAB } from '../../lib/config/defaults';\nexport default { ...REFERENCE_HOMELAB, marker: 22 };\n");
    const third = loadBundle(file, (s) => s, asConfig);
    // THEN it is rebuilt, with a code cache of its own build
    expect(third.code).toContain('marker:22}');
    expect(third.codeCache).not.toBe(first.codeCache);
  });

  test.each([['homelab.config.ts'], ['examples/ddb-cluster.config.ts']])(
    '%s bundles as data: it loads no package (cdk8s, cdk8s-plus) of its own', (config) => {
      const { code } = loadBundle(path.join(root, config), (s) => s, asConfig);
      expect(code.match(/require\("[^"]+"\)/g) ?? []).toEqual([]);
    });
});

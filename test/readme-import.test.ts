import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readTree } from '../lib/synth/output-tree';

// The README's `npm run import` (scripts/import-crds.js), end to end. In a file of its own: it runs the cdk8s
// CLI once per pinned CRD, the slowest spawn of the suite, and a file is the unit jest runs in parallel.
const root = path.resolve(__dirname, '..');
const crds = path.resolve(root, '../shared/crds');

describe('README commands', () => {
  (fs.existsSync(crds) ? test : test.skip)('npm run import regenerates imports/ byte for byte from the pinned CRDs', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-import-'));
    try {
      const out = path.join(tmp, 'imports');
      const r = spawnSync('node', ['scripts/import-crds.js', '--out', out], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      expect(r.status).toBe(0);
      expect([...readTree(out).entries()]).toEqual([...readTree(path.join(root, 'imports')).entries()]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readTree } from '../lib/synth/output-tree';

// The README's `npm run schemas` (scripts/generate-schemas.js), end to end. In a file of its own, so that it
// runs in parallel with the other README commands (a file is the unit jest runs in parallel).
const root = path.resolve(__dirname, '..');

describe('generated schemas', () => {
  const crds = path.resolve(root, '../shared/crds');
  (fs.existsSync(crds) ? test : test.skip)('npm run schemas regenerates schemas/ byte for byte', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'schemas-'));
    const r = spawnSync('node', ['scripts/generate-schemas.js', '--out', out], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect([...readTree(out).entries()]).toEqual([...readTree(path.join(root, 'schemas')).entries()]);
    fs.rmSync(out, { recursive: true, force: true });
  });
});

import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readTree } from '../lib/output/output-tree';

// Every command the README shows is exercised here, by the end-to-end test of its command, or by .ci/run, so
// the README cannot rot: `npm run plan` in test/cli/run-plan.test.ts; `npm run diff` in test/cli/run-diff.test.ts;
// `npm run import` and `npm run schemas` by `npm run check` in .ci/run (scripts/check-generated.js regenerates both and compares them byte for byte).
const root = path.resolve(__dirname, '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const scripts: Record<string, string> = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
const ci = fs.readFileSync(path.join(root, '.ci/run'), 'utf8');

/** The command lines of the README's `sh` blocks, without comments. */
const commands = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1].split('\n'))
  .map((l) => l.replace(/\s+#.*$/, '').trim())
  .filter((l) => l !== '');

function run(command: string, args: string[], cwd = root) {
  return spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

describe('README commands', () => {
  let tmp: string;
  beforeAll(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-')); });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('the quick start is exactly two commands: synthesize and test, and .ci/run runs that test command', () => {
    const quickStart = readme.split('## Quick start')[1].split('\n## ')[0];
    const block = /```sh\n([\s\S]*?)```/.exec(quickStart)![1].trim().split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
    expect(block).toEqual(['npm run synth', 'npm test']);
    expect(ci).toMatch(/^npm test\b/m);
  });

  test('every npm script the README names exists', () => {
    const named = commands.filter((c) => c.startsWith('npm run ')).map((c) => c.split(/\s+/)[2]);
    expect(named.length).toBeGreaterThan(5);
    for (const name of named) expect({ name, exists: name in scripts }).toEqual({ name, exists: true });
  });

  test('every README command is one this test or .ci/run exercises', () => {
    const exercised = [
      /^npm run synth$/, /^npm test$/, /^npm run synth -- --config examples\/ddb-cluster\.config\.ts --out \S+$/,
      /^npm run (typecheck|check|lint|lint:deps|lint:dist|lint:renovate|test:package|test:cluster|test:workflows)$/, /^npm run workflows$/, /^npm run build$/, /^npm run plan$/, /^npm run plan -- --scenario \S+$/, /^npm run coverage -- --repo \S+$/, /^npm run diff( -- --base \S+ --markdown)?$/, /^npm run import$/, /^npm run schemas$/,
      /^npm run bench$/, /^dist\/bootstrap\/bootstrap\.sh( --dry-run)?$/, /^ssh-keygen /, /^age-keygen /,
      /^npm run diagrams$/,
    ];
    for (const c of commands) expect({ c, exercised: exercised.some((r) => r.test(c)) }).toEqual({ c, exercised: true });
    for (const s of ['typecheck', 'lint', 'lint:deps', 'lint:renovate', 'test:package', 'test:cluster', 'test:workflows', 'check', 'lint:dist']) expect(ci).toContain(`npm run ${s}`);
    expect(ci).toContain('npm run diagrams');
    // the commands exercised by other test files (see the top of this file) still are
    const elsewhere: [string, string][] = [
      ['test/cli/run-plan.test.ts', "spawnSync('npm', ['run', '--silent', 'plan']"],
      ['test/cli/run-diff.test.ts', "spawnSync('npm', ['run', '--silent', 'diff', '--', '--base', 'HEAD']"],
      ['scripts/check-generated.js', "script: 'scripts/import-crds.js'"],
      ['scripts/check-generated.js', "script: 'scripts/generate-schemas.js'"],
      ['scripts/check-generated.js', "'lib/workflows/write-workflows.ts', '--check'"],
    ];
    for (const [file, call] of elsewhere) {
      expect({ file, call, present: fs.readFileSync(path.join(root, file), 'utf8').includes(call) }).toEqual({ file, call, present: true });
    }
    expect(scripts).toMatchObject({ plan: 'node --require tsx/cjs lib/cli/plan.ts', import: 'node scripts/import-crds.js', schemas: 'node scripts/generate-schemas.js' });
    expect(scripts.check).toContain('node scripts/check-generated.js');
  });

  test('npm run synth -- --config examples/ddb-cluster.config.ts --out <dir>', () => {
    const out = path.join(tmp, 'ddb-dist');
    const r = run('npm', ['run', '-s', 'synth', '--', '--config', 'examples/ddb-cluster.config.ts', '--out', out]);
    // stderr holds only the warning about pins that get no more fixes (test/plan/pins.test.ts), said on every synthesis
    expect(r.stderr.split('\n')[0]).toMatch(/^Warning: this output deploys \d+ components? that get no more fixes/);
    expect(r.stderr.split('\n').slice(1).filter((l) => l !== '').every((l) => / is (end-of-life|retired|archived) since /.test(l))).toBe(true);
    expect(r.status).toBe(0);
    expect(readTree(out).has('bootstrap/06-postgres-ddb-cluster.yaml')).toBe(true);
  });

  test('dist/bootstrap/bootstrap.sh --dry-run prints the plan and needs no cluster', () => {
    const r = run('bash', ['dist/bootstrap/bootstrap.sh', '--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('01-namespaces.yaml');
    expect(r.stdout).toContain('10-argocd-root.yaml');
  });

  test('npm run coverage -- --repo <checkout> is clean on a checkout that matches the config', () => {
     
    const { makeHomelabTree } = require('../bench/coverage-fixture');
    const repo = path.join(tmp, 'homelab');
    makeHomelabTree(repo, 150);
    const r = run('npm', ['run', '-s', 'coverage', '--', '--repo', repo]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\n\nNo findings: every deployable directory is reconciled by exactly one Application\.\n$/);
  });
});

import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseCommandLine } from '../../lib/cli/args';
import { DIFF_EXIT, runDiff } from '../../lib/cli/run-diff';
import { writeTree } from '../../lib/output/output-tree';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { referenceCopy, withOldForgejoSelector } from '../review/review-helpers';

const root = path.resolve(__dirname, '../..');
const io = { cwd: root, isTTY: false, env: {} };
const options = (extra: object) => ({ config: 'risky.config.ts', format: 'text' as const, color: 'never' as const, ...extra });

/** The done-when change: Forgejo's selector (the base was written by an older program), its volume shrunk, a chart bumped. */
function riskyConfig() {
  const config = referenceCopy();
  config.forgejo = { ...config.forgejo, storageSize: '10Gi' };
  config.argocd.applications['cert-manager'].sources[0].version = 'v1.22.0';
  return config;
}

describe('npm run diff', () => {
  let tmp: string;
  let baseDir: string;
  let oldBaseDir: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diff-'));
    const tree = synthesizeHomelab(referenceCopy()).tree;
    baseDir = path.join(tmp, 'base');
    writeTree(tree, baseDir);
    oldBaseDir = path.join(tmp, 'old-base');
    writeTree(withOldForgejoSelector(tree), oldBaseDir);
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe('a selector change, a volume shrink (and the backup scratch space bounded by it) and a chart bump: exactly those, classified, risky', () => {
    test('--json', () => {
      const r = runDiff(riskyConfig(), options({ baseDir: oldBaseDir, format: 'json' }), io);
      expect(r.exitCode).toBe(DIFF_EXIT.RISKY);
      const report = JSON.parse(r.stdout);
      expect(report.risky).toBe(true);
      expect(report.changes.map((c: any) => [c.change, c.kind, `${c.namespace}/${c.name}`, c.classes])).toEqual([
        // The backup's scratch space is bounded by the volume's size, so it shrinks with it.
        ['changed', 'CronJob', 'cicd/forgejo-backup', ['needs-runbook']],
        ['changed', 'Deployment', 'cicd/forgejo', ['breaks-apply', 'needs-runbook']],
        ['changed', 'PersistentVolumeClaim', 'cicd/forgejo-data', ['breaks-apply', 'destroys-data', 'needs-runbook']],
        ['changed', 'Application', 'argocd/cert-manager', ['moves-pin']],
      ]);
      expect(report.changes[0].fields).toEqual([{ path: 'spec.jobTemplate.spec.template.spec.volumes[dump].emptyDir.sizeLimit', old: '20Gi', new: '10Gi' }]);
      expect(report.changes[1].fields).toEqual([{ path: 'spec.selector.matchLabels["app.kubernetes.io/instance"]', new: 'forgejo' }]);
      expect(report.changes[3]).toMatchObject({ application: 'cert-manager', wave: 1,
        findings: [{ class: 'moves-pin', from: 'v1.21.1', to: 'v1.22.0' }] });
      expect(report.runbookSteps).toEqual(['07-forgejo']);
    });

    test('--markdown', () => {
      const r = runDiff(riskyConfig(), options({ baseDir: oldBaseDir, format: 'markdown' }), io);
      expect(r.exitCode).toBe(DIFF_EXIT.RISKY);
      const rows = r.stdout.split('\n').filter((l) => /^\| [~+-] \|/.test(l));
      expect(rows).toEqual([
        '| ~ | `CronJob cicd/forgejo-backup` | bootstrap step `07-forgejo` | 📋 needs the runbook |',
        '| ~ | `Deployment cicd/forgejo` | bootstrap step `07-forgejo` | ⛔ breaks apply, 📋 needs the runbook |',
        '| ~ | `PersistentVolumeClaim cicd/forgejo-data` | bootstrap step `07-forgejo` | ⛔ breaks apply, 🔥 destroys data, 📋 needs the runbook |',
        '| ~ | `Application argocd/cert-manager` | wave 1, `cert-manager` | 📌 moves a pin |',
      ]);
      expect(r.stdout).toContain('**Risky: 2 breaks apply, 1 destroys data, 3 needs the runbook, 1 moves a pin.**');
    });

    test('text: 80 columns, no colour off a terminal, coloured on one unless NO_COLOR', () => {
      const r = runDiff(riskyConfig(), options({ baseDir: oldBaseDir, color: 'auto' }), io);
      expect(r.exitCode).toBe(DIFF_EXIT.RISKY);
      expect(r.stdout.split('\n').filter((l) => /^ {2}[~+-] /.test(l)).map((l) => l.split(' [')[0])).toEqual([
        '  ~ changed CronJob cicd/forgejo-backup', '  ~ changed Deployment cicd/forgejo', '  ~ changed PersistentVolumeClaim cicd/forgejo-data', '  ~ changed Application argocd/cert-manager']);
      expect(r.stdout).toContain('spec.selector is immutable');
      expect(r.stdout).toContain('Re-run the runbook (dist/bootstrap/bootstrap.sh) for: 07-forgejo.');
      expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
      expect(r.stdout).not.toMatch(/\x1b\[/);
      expect(runDiff(riskyConfig(), options({ baseDir: oldBaseDir, color: 'auto' }), { ...io, isTTY: true }).stdout).toMatch(/\x1b\[/);
      expect(runDiff(riskyConfig(), options({ baseDir: oldBaseDir, color: 'auto' }), { ...io, isTTY: true, env: { NO_COLOR: '1' } }).stdout).not.toMatch(/\x1b\[/);
    });
  });

  test('a no-op change reports nothing and exits 0, in every format', () => {
    for (const format of ['text', 'json', 'markdown'] as const) {
      const r = runDiff(referenceCopy(), options({ baseDir, format }), io);
      expect({ format, exitCode: r.exitCode }).toEqual({ format, exitCode: 0 });
      if (format === 'json') expect(JSON.parse(r.stdout)).toMatchObject({ risky: false, changes: [] });
      else expect(r.stdout).toContain('No object changes');
    }
  });

  test('a pin move alone is not risky: exit 0', () => {
    const config = referenceCopy();
    config.argocd.applications['cert-manager'].sources[0].version = 'v1.22.0';
    const r = runDiff(config, options({ baseDir }), io);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Nothing risky (1 moves a pin).');
  });

  test('--base reads dist/ from git: the merge base with main by default, or the ref given', () => {
    // GIVEN a repository whose main holds the older output, and a branch with one more commit
    const repo = path.join(tmp, 'repo');
    const git = (...args: string[]) => {
      const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      return r.stdout.trim();
    };
    fs.mkdirSync(repo);
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 't@example.com');
    git('config', 'user.name', 'test');
    fs.cpSync(oldBaseDir, path.join(repo, 'dist'), { recursive: true });
    git('add', '.');
    git('commit', '-qm', 'base');
    git('checkout', '-qb', 'feature');
    fs.writeFileSync(path.join(repo, 'dist', 'README.md'), 'changed on the branch\n');
    git('commit', '-qam', 'branch');
    // WHEN
    const byDefault = runDiff(riskyConfig(), options({ format: 'json' }), { ...io, cwd: repo });
    const byRef = runDiff(referenceCopy(), options({ base: 'feature', format: 'json' }), { ...io, cwd: repo });
    // THEN
    expect(byDefault.exitCode).toBe(DIFF_EXIT.RISKY);
    expect(JSON.parse(byDefault.stdout).base).toMatch(/^dist\/ at the merge base with main \([0-9a-f]{7}\)$/);
    expect(JSON.parse(byDefault.stdout).changes).toHaveLength(4);
    expect(JSON.parse(byRef.stdout).changes.map((c: any) => c.name)).toEqual(['forgejo']);
    expect(runDiff(referenceCopy(), options({ base: 'no-such-ref' }), { ...io, cwd: repo })).toMatchObject({ exitCode: 1, stderr: expect.stringContaining("'no-such-ref' is not a commit") });
  });

  test('fails with usage errors (exit 2) for --json with --markdown and --base with --base-dir', () => {
    expect(parseCommandLine('diff', ['--json', '--markdown'])).toMatchObject({ kind: 'exit', exitCode: 2, stderr: expect.stringContaining('--json and --markdown exclude each other.') });
    expect(parseCommandLine('diff', ['--base', 'main', '--base-dir', 'x'])).toMatchObject({ kind: 'exit', exitCode: 2 });
    expect(parseCommandLine('diff', ['--help'])).toMatchObject({ kind: 'exit', exitCode: 0, stdout: expect.stringContaining('3 risky changes') });
  });

  test('npm run diff -- --base HEAD: the committed dist/ matches the config, exit 0', () => {
    const r = spawnSync('npm', ['run', '--silent', 'diff', '--', '--base', 'HEAD'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('No object changes between dist/ at HEAD');
    expect(r.status).toBe(0);
  });
});

import * as path from 'path';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { coverageCommand } from '../../lib/cli/run-coverage';
import { manifest, referenceCheckout, TempCheckouts } from '../coverage/fixture';

const checkouts = new TempCheckouts();
afterEach(() => checkouts.cleanup());

const usageError = (message: string) => ({ exitCode: 2, stdout: '', stderr: `coverage: ${message}\n` });
const text = { json: false };

// The command line (--repo required, unknown options) is parsed by parseCommandLine: test/cli/args.test.ts.

describe('coverageCommand exits 2 with a clear message when there is nothing to compare', () => {
  test('fails when the repo path does not exist or is not a directory', () => {
    const repo = checkouts.write({ 'file.txt': 'x\n' });
    const missing = path.join(repo, 'missing');
    expect(coverageCommand(REFERENCE_HOMELAB, { ...text, repo: missing })).toEqual(usageError(`repo path '${missing}' does not exist.`));
    const file = path.join(repo, 'file.txt');
    expect(coverageCommand(REFERENCE_HOMELAB, { ...text, repo: file })).toEqual(usageError(`repo path '${file}' is not a directory.`));
  });

  test('fails when the config does not synthesize', () => {
    const databases = { ...REFERENCE_HOMELAB.databases, temporal: { cluster: 'nope', owner: 'temporal' } };
    const bad: HomelabConfig = { ...REFERENCE_HOMELAB, databases };
    const result = coverageCommand(bad, { ...text, repo: checkouts.write({ 'README.md': '#\n' }) });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr)
      .toMatch(/^coverage: the config does not synthesize, so there is nothing to compare\.\nThe homelab config has \d+ problems?:\n/);
    expect(result.stderr).toContain('  - databases.temporal.cluster: unknown postgres cluster \'nope\'.');
  });
});

test('exit 0 when clean, 1 on findings; --json selects the machine format', () => {
  const clean = checkouts.write(referenceCheckout());
  expect(coverageCommand(REFERENCE_HOMELAB, { ...text, repo: clean })).toMatchObject({ exitCode: 0, stderr: '' });
  const dirty = checkouts.write({ ...referenceCheckout(), 'k8s/apps/duckdns/extra/job.yaml': manifest('Job', 'x', 'batch/v1') });
  const result = coverageCommand(REFERENCE_HOMELAB, { json: true, repo: dirty });
  expect(result.exitCode).toBe(1);
  expect(JSON.parse(result.stdout)).toMatchObject({ findings: 1, orphans: [{ path: 'k8s/apps/duckdns/extra' }] });
});

test('a git.repoRoot in the config does not turn the audit into a synth error', () => {
  // GIVEN a config that names a repo root in which paths are missing (the synth-time check would throw)
  const repo = checkouts.write({ 'README.md': '#\n' });
  const config = { ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, repoRoot: repo } } as HomelabConfig;
  // THEN the audit runs and reports them
  const result = coverageCommand(config, { json: true, repo });
  expect(result.exitCode).toBe(1);
  expect(JSON.parse(result.stdout).missing.length).toBeGreaterThan(0);
});

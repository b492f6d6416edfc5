import { spawnSync } from 'child_process';
import * as path from 'path';
import homelabConfig from '../../homelab.config';
import { COVERAGE_USAGE, coverageCommand } from '../../lib/coverage/run-coverage';
import { kustomization, manifest, referenceCheckout, TempCheckouts, withoutApplications } from './fixture';

// The real entry point (scripts/coverage.js → lib/coverage/cli.ts) in child processes: exit 1 (with --json
// and --config), exit 2 from the script and from the command.
const root = path.resolve(__dirname, '../..');

const checkouts = new TempCheckouts();
afterEach(() => checkouts.cleanup());

function coverage(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The script resolves relative paths against INIT_CWD only when npm runs it as the `coverage` script.
  delete env.npm_lifecycle_event;
  return spawnSync(process.execPath, [path.join(root, 'scripts/coverage.js'), ...args], { cwd: root, env, encoding: 'utf8' });
}

// The clean verdict and the text report are the command's output (coverageCommand, what lib/coverage/cli.ts
// prints): in-process. Exit 0 of the real process is shown by `npm run coverage` in test/readme.test.ts, exit 1
// and 2 by the spawns below.
test('exit 0 and a one-line verdict on a clean checkout (config: homelab.config.ts)', () => {
  const repo = checkouts.write(referenceCheckout(homelabConfig));
  const r = coverageCommand(homelabConfig, ['--repo', repo]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toMatch(
    /^Coverage audit of .+: \d+ Applications, \d+ files\.\n\nNo findings: every deployable directory is reconciled by exactly one Application\.\n$/);
});

test('exit 1 with the findings grouped under headings', () => {
  // GIVEN a dead aggregator and the stale second app-of-apps of the platform
  const repo = checkouts.write({
    ...referenceCheckout(homelabConfig),
    'k8s/platform/kustomization.yaml': kustomization(['monitoring']),
    'applications/sqs/argocd/app.yaml': manifest('Application', 'kmsvc-root', 'argoproj.io/v1alpha1'),
  });
  // WHEN
  const text = coverageCommand(homelabConfig, ['--repo', repo]);
  // THEN
  expect(text.exitCode).toBe(1);
  expect(text.stdout.split('\n').slice(1)).toEqual([
    '',
    'Dead aggregators (1): kustomizations no Application reaches. Point an Application at one, or delete it.',
    '  - k8s/platform/kustomization.yaml: no Application reaches it; its directory is no Application\'s source and no reached '
      + 'kustomization lists it.',
    '',
    'Second app-of-apps (1): Application and ApplicationSet manifests outside the generated argocd/ folder.',
    '  - applications/sqs/argocd/app.yaml: Application \'kmsvc-root\' outside k8s/generated/argocd, applied by no Application: stale. '
      + 'Delete it, or move its Applications into argocd.applications.',
    '',
    '2 findings.',
    '',
  ]);
  expect(text.stdout.split('\n')[0]).toBe(`Coverage audit of ${repo}: ${text.stdout.match(/: (\d+) Applications/)![1]} Applications, `
    + `${Object.keys(referenceCheckout(homelabConfig)).length + 2} files.`);
});

test('--json with --config: a config without monitoring-config leaves the 27 monitoring manifests orphaned', () => {
  // GIVEN a config file without the monitoring-config Application
  const variant = withoutApplications('monitoring-config');
  const repo = checkouts.write(referenceCheckout(variant));
  const configFile = 'test/fixtures/configs/without-monitoring-config.config.ts';
  // WHEN
  const r = coverage(['--json', '--repo', repo, '--config', configFile]);
  // THEN
  expect([r.status, r.stderr]).toEqual([1, '']);
  const report = JSON.parse(r.stdout);
  expect(Object.keys(report)).toEqual(['repo', 'applications', 'files', 'findings', 'orphans', 'duplicates', 'missing',
    'deadAggregators', 'secondAppOfApps', 'unmatchedSecrets']);
  expect(report).toMatchObject({ repo, findings: 7, duplicates: [], missing: [], secondAppOfApps: [], unmatchedSecrets: [] });
  expect(report.orphans).toEqual([
    { path: 'k8s/infra/monitoring/alerts', type: 'directory', manifests: 12, kinds: ['PrometheusRule'],
      message: 'k8s/infra/monitoring/alerts: 12 manifest files (PrometheusRule) that no Application reconciles.' },
    { path: 'k8s/infra/monitoring/dashboards', type: 'directory', manifests: 6, kinds: ['ConfigMap'],
      message: 'k8s/infra/monitoring/dashboards: 6 manifest files (ConfigMap) that no Application reconciles.' },
    { path: 'k8s/infra/monitoring/servicemonitors', type: 'directory', manifests: 9, kinds: ['ServiceMonitor'],
      message: 'k8s/infra/monitoring/servicemonitors: 9 manifest files (ServiceMonitor) that no Application reconciles.' },
  ]);
  expect(report.deadAggregators.map((d: { path: string }) => d.path)).toEqual([
    'k8s/infra/monitoring/alerts/kustomization.yaml', 'k8s/infra/monitoring/dashboards/kustomization.yaml',
    'k8s/infra/monitoring/kustomization.yaml', 'k8s/infra/monitoring/servicemonitors/kustomization.yaml',
  ]);
});

test('exit 2 on a usage error, with the message and the usage line on stderr', () => {
  const r = coverage(['--repo', root, '--verbose']);
  expect([r.status, r.stdout, r.stderr]).toEqual([2, '', `coverage: unknown argument '--verbose'.\n${COVERAGE_USAGE}\n`]);
});

test('exit 2 when the --config file does not exist', () => {
  const r = coverage(['--repo', root, '--config', 'nope.config.ts']);
  expect([r.status, r.stdout, r.stderr]).toEqual([2, '', `coverage: config file not found: nope.config.ts\n${COVERAGE_USAGE}\n`]);
});

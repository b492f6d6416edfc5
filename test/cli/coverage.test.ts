import homelabConfig from '../../homelab.config';
import { USAGE } from '../../lib/cli/args';
import { coverageCommand } from '../../lib/cli/run-coverage';
import { root, run } from './command';
import { kustomization, manifest, referenceCheckout, TempCheckouts, withoutApplications } from '../coverage/fixture';

// The real entry point (package.json's coverage script: lib/cli/coverage.ts under tsx) in child processes:
// exit 1 (with --json and --config), exit 2 from the command line and from the command.

const checkouts = new TempCheckouts();
afterEach(() => checkouts.cleanup());

const coverage = (args: string[]) => run('coverage', args);

// The clean verdict and the text report are the command's output (coverageCommand, what lib/cli/coverage.ts
// prints): in-process. Exit 0 of the real process is shown by `npm run coverage` in test/readme.test.ts, exit 1
// and 2 by the spawns below.
test('exit 0 and a one-line verdict on a clean checkout (config: homelab.config.ts)', () => {
  const repo = checkouts.write(referenceCheckout(homelabConfig));
  const r = coverageCommand(homelabConfig, { repo, json: false });
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
  const text = coverageCommand(homelabConfig, { repo, json: false });
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
  expect([r.status, r.stdout, r.stderr]).toEqual([2, '', `coverage: unknown option '--verbose'.\n${USAGE.coverage}\n`]);
});

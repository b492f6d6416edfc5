import { spawnSync } from 'child_process';
import { Duration, Testing } from 'cdk8s';
import YAML from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { E2E_METRIC, E2eAnalysisTemplate } from '../../lib/constructs/delivery/e2e-analysis-template';
import { E2ePostSyncJob } from '../../lib/constructs/delivery/e2e-post-sync-job';
import { E2eSmokeAlerts } from '../../lib/constructs/delivery/e2e-smoke-alerts';
import { E2eSmokeCronJob } from '../../lib/constructs/delivery/e2e-smoke-cron-job';
import { GATE_CONFIG, PlaywrightRunProps } from '../../lib/constructs/delivery/playwright-run';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { find } from '../util';
import { findTool, testWith } from '../tools';
import { problemsOfObjects } from '../validation/util';

const RUN: PlaywrightRunProps = {
  image: 'mcr.microsoft.com/playwright:v1.65.1-noble',
  playwrightVersion: '1.65.1',
  suite: { repoURL: 'https://github.com/owner/homelab.git', revision: 'main', path: 'tests/e2e' },
  scenarios: ['shop/home.spec.ts'],
  baseURL: 'http://shop-canary.shop.svc.cluster.local:8080',
  artifacts: {
    endpointUrl: 'https://s3.example.net', bucket: 'homelab-e2e', folder: 'e2e-artifacts',
    accessKeyId: { name: 'e2e-s3', key: 'ACCESS_KEY_ID' }, secretAccessKey: { name: 'e2e-s3', key: 'ACCESS_SECRET_KEY' },
  },
  runFolder: 'shop/canary',
  timeout: Duration.minutes(15),
};

/** Every container (init containers first) of a pod spec. */
function containers(pod: any): any[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}
function env(container: any, name: string): string | undefined {
  return container.env.find((e: any) => e.name === name)?.value;
}

/**
 * The contract of a rolling app's gate: a Job that Argo CD runs as a PostSync hook (after every resource is Healthy; a
 * failure fails the sync), replaced by name before the next run, with no retry. Throws naming what differs.
 */
function expectPostSyncGate(job: any): void {
  expect(job.kind).toBe('Job');
  expect(job.metadata.annotations).toEqual({
    'argocd.argoproj.io/hook': 'PostSync',
    'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
  });
  expect(job.spec.backoffLimit).toBe(0);
}

/** No privilege, restricted Pod Security, pinned images, requests: what every run's pod must be. */
function expectRestrictedAndPinned(pod: any): void {
  expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  expect(pod.automountServiceAccountToken).toBe(false);
  for (const c of containers(pod)) {
    expect(c.securityContext).toMatchObject({
      privileged: false, allowPrivilegeEscalation: false, runAsNonRoot: true, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] },
    });
    expect(c.image).toMatch(/:[A-Za-z0-9_][A-Za-z0-9_.-]*$/);
    expect(c.image).not.toMatch(/:latest$/);
    expect(c.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
  }
}

describe('E2eAnalysisTemplate', () => {
  test('a Job-provider metric that runs the WebKit journeys against the canary and uploads video and trace', () => {
    // GIVEN
    const chart = Testing.chart();
    // WHEN
    const template = new E2eAnalysisTemplate(chart, 'Gate', { name: 'shop-e2e', namespace: 'shop', run: RUN });
    // THEN
    const t = find(Testing.synth(chart), 'AnalysisTemplate', 'shop-e2e');
    expect(t.apiVersion).toBe('argoproj.io/v1alpha1');
    expect(t.metadata.namespace).toBe('shop');
    expect(t.spec.metrics).toHaveLength(1);
    const [metric] = t.spec.metrics;
    expect(metric.name).toBe(E2E_METRIC);
    // One measurement (no interval, no count), and no failure tolerated.
    expect(metric.failureLimit).toBe(0);
    expect(metric.interval).toBeUndefined();
    expect(metric.count).toBeUndefined();
    expect(Object.keys(metric.provider)).toEqual(['job']);
    const job = metric.provider.job.spec;
    expect(job.backoffLimit).toBe(0);
    expect(job.activeDeadlineSeconds).toBe(900);
    expect(template.jobSpec.backoffLimit).toBe(0);
    const pod = job.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(containers(pod).map((c) => c.name)).toEqual(['suite', 'journeys', 'upload']);
    const journeys = pod.initContainers[1];
    expect(env(journeys, 'E2E_BASE_URL')).toBe('http://shop-canary.shop.svc.cluster.local:8080');
    expect(JSON.parse(env(journeys, 'E2E_SCENARIOS')!)).toEqual(['shop/home.spec.ts']);
    expect(journeys.command.join(' ')).toContain('playwright test --config playwright.homelab-gate.config.mjs');
    const upload = pod.containers[0];
    expect(upload.image).toBe('docker.io/rclone/rclone:1.75.0');
    expect(upload.command.join(' ')).toContain('rclone copy /results "$target"');
    expect(env(upload, 'REMOTE')).toBe('STORE:homelab-e2e/e2e-artifacts');
    expect(env(upload, 'RUN_FOLDER')).toBe('shop/canary');
    expectRestrictedAndPinned(pod);
    expect(problemsOfObjects(t)).toEqual([]);
  });

  test('the gate\'s Playwright config runs WebKit only, without retries, recording video and trace', () => {
    expect(GATE_CONFIG).toContain('projects: [{ name: \'webkit\', use: { ...devices[\'Desktop Safari\'], baseURL: process.env.E2E_BASE_URL } }]');
    expect(GATE_CONFIG).not.toMatch(/chromium|firefox|Desktop Chrome/i);
    expect(GATE_CONFIG).toContain('retries: 0');
    expect(GATE_CONFIG).toContain('use: { video: \'on\', trace: \'on\'');
    expect(GATE_CONFIG).toContain('outputDir: \'/results/test-results\'');
  });

  test('the suite must install the image\'s Playwright; the browser download is off', () => {
    const chart = Testing.chart();
    new E2eAnalysisTemplate(chart, 'Gate', { name: 'shop-e2e', namespace: 'shop', run: RUN });
    const suite = find(Testing.synth(chart), 'AnalysisTemplate', 'shop-e2e').spec.metrics[0].provider.job.spec.template.spec.initContainers[0];
    expect(env(suite, 'PLAYWRIGHT_VERSION')).toBe('1.65.1');
    expect(env(suite, 'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD')).toBe('1');
    expect(suite.command[2]).toContain('if [ "$installed" != "$PLAYWRIGHT_VERSION" ]; then');
  });

  test('throws for a suite URL with credentials, a floating revision and no scenarios', () => {
    const chart = Testing.chart();
    expect(() => new E2eAnalysisTemplate(chart, 'A', { name: 'a', namespace: 'shop', run: { ...RUN, suite: { ...RUN.suite, repoURL: 'https://t@github.com/o/r.git' } } }))
      .toThrow('test/A: \'run\': \'suite.repoURL\' must be an HTTPS git URL without credentials, got \'https://t@github.com/o/r.git\'.');
    expect(() => new E2eAnalysisTemplate(chart, 'B', { name: 'b', namespace: 'shop', run: { ...RUN, scenarios: [] } }))
      .toThrow('test/B: \'run\': \'scenarios\' is empty: name at least one spec file of the suite.');
    expect(() => new E2eAnalysisTemplate(chart, 'C', { name: 'C', namespace: 'shop', run: RUN }))
      .toThrow('test/C: \'name\' \'C\' must consist of lower case letters, digits and \'-\', and start and end with a letter or digit.');
  });
});

describe('E2ePostSyncJob', () => {
  test('a PostSync hook Job, replaced before the next run, that fails the sync on a failed journey', () => {
    const chart = Testing.chart();
    new E2ePostSyncJob(chart, 'Gate', { name: 'shop-e2e', namespace: 'shop', run: { ...RUN, baseURL: 'https://shop.example' } });
    const job = find(Testing.synth(chart), 'Job', 'shop-e2e');
    expectPostSyncGate(job);
    expect(env(job.spec.template.spec.initContainers[1], 'E2E_BASE_URL')).toBe('https://shop.example');
    expectRestrictedAndPinned(job.spec.template.spec);
  });

  test('fails on purpose: a PreSync hook (it would run before the new version exists) is not the gate', () => {
    const chart = Testing.chart();
    new E2ePostSyncJob(chart, 'Gate', { name: 'shop-e2e', namespace: 'shop', run: RUN });
    const job = structuredClone(find(Testing.synth(chart), 'Job', 'shop-e2e'));
    job.metadata.annotations['argocd.argoproj.io/hook'] = 'PreSync';
    expect(() => expectPostSyncGate(job)).toThrow(/PreSync/);
  });

  test('the SSO journey adds its spec file and the test user from the Secret, never as a literal', () => {
    const chart = Testing.chart();
    new E2ePostSyncJob(chart, 'Gate', {
      name: 'shop-e2e', namespace: 'shop',
      run: { ...RUN, sso: { scenario: 'sso/oidc-login.spec.ts', url: 'https://auth.example', username: { name: 'sso', key: 'username' }, password: { name: 'sso', key: 'password' } } },
    });
    const journeys = find(Testing.synth(chart), 'Job', 'shop-e2e').spec.template.spec.initContainers[1];
    expect(JSON.parse(env(journeys, 'E2E_SCENARIOS')!)).toEqual(['shop/home.spec.ts', 'sso/oidc-login.spec.ts']);
    expect(env(journeys, 'E2E_SSO_URL')).toBe('https://auth.example');
    expect(journeys.env.find((e: any) => e.name === 'E2E_SSO_PASSWORD')).toEqual({ name: 'E2E_SSO_PASSWORD', valueFrom: { secretKeyRef: { name: 'sso', key: 'password' } } });
  });
});

describe('E2eSmokeCronJob and E2eSmokeAlerts', () => {
  test('one run at a time on the schedule, with history limits', () => {
    const chart = Testing.chart();
    new E2eSmokeCronJob(chart, 'Smoke', { name: 'e2e-smoke-shop', namespace: 'e2e-smoke', schedule: '*/30 * * * *', run: RUN });
    const cronJob = find(Testing.synth(chart), 'CronJob', 'e2e-smoke-shop');
    expect(cronJob.spec).toMatchObject({
      schedule: '*/30 * * * *', concurrencyPolicy: 'Forbid', successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 3, startingDeadlineSeconds: 900,
    });
    expect(cronJob.spec.jobTemplate.spec.backoffLimit).toBe(0);
    expectRestrictedAndPinned(cronJob.spec.jobTemplate.spec.template.spec);
  });

  test('throws for a six-field schedule and a name too long for its Jobs', () => {
    const chart = Testing.chart();
    expect(() => new E2eSmokeCronJob(chart, 'A', { name: 'e2e-smoke-shop', namespace: 'e2e-smoke', schedule: '0 */30 * * * *', run: RUN }))
      .toThrow('test/A: \'schedule\' \'0 */30 * * * *\' has 6 fields, like CNPG\'s ScheduledBackup (seconds first); a Kubernetes CronJob schedule has 5, minutes first: write \'*/30 * * * *\'.');
    expect(() => new E2eSmokeCronJob(chart, 'B', { name: 'x'.repeat(53), namespace: 'e2e-smoke', schedule: '@hourly', run: RUN }))
      .toThrow(`test/B: 'name' '${'x'.repeat(53)}' must be at most 52 characters, got 53.`);
  });

  test('alerts when the last run failed and when none succeeded for two intervals plus a run', () => {
    const chart = Testing.chart();
    const smoke = new E2eSmokeCronJob(chart, 'Smoke', { name: 'e2e-smoke-shop', namespace: 'e2e-smoke', schedule: '*/30 * * * *', run: RUN });
    const alerts = new E2eSmokeAlerts(chart, 'Alerts', { cronJobs: [smoke], selectorLabels: { release: 'prometheus' } });
    expect(alerts.staleAfterSeconds).toBe(2 * 1800 + 900);
    const rule = find(Testing.synth(chart), 'PrometheusRule', 'e2e-smoke-alerts');
    expect(rule.metadata.labels.release).toBe('prometheus');
    const sel = 'namespace="e2e-smoke", cronjob=~"e2e-smoke-shop"';
    expect(rule.spec.groups[0].rules.map((r: any) => [r.alert, r.expr, r.labels.severity])).toEqual([
      ['E2eSmokeFailed', `kube_cronjob_status_last_schedule_time{${sel}} > kube_cronjob_status_last_successful_time{${sel}} ` +
        `and on (namespace, cronjob) kube_cronjob_status_active{${sel}} == 0`, 'warning'],
      ['E2eSmokeNotSucceeded', `time() - kube_cronjob_status_last_successful_time{${sel}} > 4500 ` +
        `or (time() - kube_cronjob_created{${sel}} > 4500 unless on (namespace, cronjob) kube_cronjob_status_last_successful_time{${sel}})`, 'critical'],
    ]);
    expect(problemsOfObjects(rule)).toEqual([]);
  });

  test('throws without CronJobs and without selector labels', () => {
    const chart = Testing.chart();
    expect(() => new E2eSmokeAlerts(chart, 'A', { cronJobs: [], selectorLabels: { release: 'p' } }))
      .toThrow('test/A: \'cronJobs\' is empty; pass the smoke CronJobs to alert on.');
    const smoke = new E2eSmokeCronJob(chart, 'Smoke', { name: 'e2e-smoke-shop', namespace: 'e2e-smoke', schedule: '@hourly', run: RUN });
    expect(() => new E2eSmokeAlerts(chart, 'B', { cronJobs: [smoke], selectorLabels: {} }))
      .toThrow('test/B: \'selectorLabels\' is empty; pass the labels the Prometheus selects rules by, e.g. { release: \'prometheus\' }.');
  });
});

describe('the reference homelab\'s E2E gate', () => {
  const synthesis = synthesizeHomelab(REFERENCE_HOMELAB);
  const docs = (file: string): any[] => {
    const text = synthesis.tree.get(file);
    if (text === undefined) throw new Error(`${file} is not in the output`);
    return YAML.parseAllDocuments(text).map((d) => d.toJSON());
  };

  test('the canary hello gets its AnalysisTemplate in apps/hello/e2e.yaml, against hello-canary', () => {
    const [template, ...rest] = docs('apps/hello/e2e.yaml');
    expect(rest).toEqual([]);
    expect(template).toMatchObject({ kind: 'AnalysisTemplate', metadata: { name: 'hello-e2e', namespace: 'hello' } });
    const journeys = template.spec.metrics[0].provider.job.spec.template.spec.initContainers[1];
    expect(env(journeys, 'E2E_BASE_URL')).toBe('http://hello-canary.hello.svc.cluster.local:8080');
    // The SSO journey is not part of a canary's gate: its callback would reach the stable pods.
    expect(env(journeys, 'E2E_SSO_URL')).toBeUndefined();
  });

  test('the rolling status gets its PostSync hook in apps/status/e2e.yaml, with the SSO journey against its public URL', () => {
    const [job] = docs('apps/status/e2e.yaml');
    expectPostSyncGate(job);
    const journeys = job.spec.template.spec.initContainers[1];
    expect(env(journeys, 'E2E_BASE_URL')).toBe('https://status.homelab.example');
    expect(JSON.parse(env(journeys, 'E2E_SCENARIOS')!)).toEqual(['status/page.spec.ts', 'sso/oidc-login.spec.ts']);
  });

  test('e2e-smoke: a CronJob per journey set on the schedule, and the alerts, after the monitoring stack', () => {
    const files = [...synthesis.tree.keys()].filter((f) => f.startsWith('delivery/e2e-smoke/'));
    expect(files).toEqual(['argocd', 'alerts', 'authentik', 'forgejo', 'grafana', 'hello', 'portainer', 'status']
      .sort().map((f) => `delivery/e2e-smoke/${f}.yaml`));
    const [cronJob] = docs('delivery/e2e-smoke/portainer.yaml');
    expect(cronJob).toMatchObject({ kind: 'CronJob', metadata: { name: 'e2e-smoke-portainer', namespace: 'e2e-smoke' }, spec: { schedule: '*/30 * * * *' } });
    const [rule] = docs('delivery/e2e-smoke/alerts.yaml');
    expect(rule.spec.groups[0].rules.map((r: any) => r.alert)).toEqual(['E2eSmokeFailed', 'E2eSmokeNotSucceeded']);
    const app = synthesis.argocd.applications.get('e2e-smoke')!;
    const prometheus = synthesis.argocd.applications.get('prometheus')!;
    expect(app.syncWave).toBe(prometheus.syncWave + 1);
    expect(app.syncWave).toBeGreaterThan(synthesis.argocd.applications.get('sops-secrets')!.syncWave);
    expect(docs('argocd/apps/e2e-smoke.yaml')[0].spec.source.path).toBe('k8s/generated/delivery/e2e-smoke');
  });

  test('every run reads its Secrets by reference, and the tree lists them in each namespace', () => {
    const refs = synthesis.argocd.secretReferences.filter((s) => s.usedBy.includes('E2E') || s.usedBy.includes('e2e'));
    expect(refs.map((s) => `${s.namespace}/${s.name}: ${s.keys.join(',')}`).sort()).toEqual([
      'e2e-smoke/e2e-artifacts-s3: ACCESS_KEY_ID,ACCESS_SECRET_KEY',
      'e2e-smoke/e2e-sso-user: password,username',
      'e2e-smoke/e2e-suite-git: password,username',
      'hello/e2e-artifacts-s3: ACCESS_KEY_ID,ACCESS_SECRET_KEY',
      'hello/e2e-suite-git: password,username',
      'status/e2e-artifacts-s3: ACCESS_KEY_ID,ACCESS_SECRET_KEY',
      'status/e2e-sso-user: password,username',
      'status/e2e-suite-git: password,username',
    ]);
  });

  test('every E2E object is valid against the pinned CRDs and Kubernetes 1.30, restricted, pinned, never privileged', () => {
    const objects = [...synthesis.tree.keys()].filter((f) => f.startsWith('delivery/e2e-smoke/') || /^apps\/[^/]+\/e2e\.yaml$/.test(f)).flatMap(docs);
    expect(problemsOfObjects(...objects)).toEqual([]);
    const pods = objects.flatMap((o) => (o.kind === 'CronJob' ? [o.spec.jobTemplate.spec.template.spec]
      : o.kind === 'Job' ? [o.spec.template.spec] : o.kind === 'AnalysisTemplate' ? [o.spec.metrics[0].provider.job.spec.template.spec] : []));
    expect(pods).toHaveLength(9);
    for (const pod of pods) expectRestrictedAndPinned(pod);
    expect(JSON.stringify(objects)).not.toMatch(/"privileged":true|:latest"/);
  });

  test('the output is the same twice', () => {
    const again = synthesizeHomelab(REFERENCE_HOMELAB).tree;
    for (const file of [...synthesis.tree.keys()].filter((f) => f.includes('e2e'))) expect(again.get(file)).toBe(synthesis.tree.get(file));
  });

  const { helperPath } = require('../../scripts/build-promql-check.js') as { helperPath: () => string };
  const promql = findTool('promql-check (node scripts/build-promql-check.js; needs Go)', [helperPath()], '--version');
  testWith(promql)('the smoke alerts load in Prometheus v3.14.0\'s rule loader', () => {
    const [rule] = docs('delivery/e2e-smoke/alerts.yaml');
    const r = spawnSync(promql.command!, [], { input: JSON.stringify([{ name: 'e2e-smoke', groups: rule.spec.groups }]), encoding: 'utf8' });
    expect({ status: r.status, out: r.stdout }).toEqual({ status: 0, out: '' });
  });
});

test('the reference homelab clones its private seed with a token from a Secret, through git\'s credential helper', () => {
  const synthesis = synthesizeHomelab(REFERENCE_HOMELAB);
  const [template] = YAML.parseAllDocuments(synthesis.tree.get('apps/hello/e2e.yaml')!).map((d) => d.toJSON());
  const suite = template.spec.metrics[0].provider.job.spec.template.spec.initContainers[0];
  expect(suite.env.filter((e: any) => e.name.startsWith('GIT_'))).toEqual([
    { name: 'GIT_USERNAME', valueFrom: { secretKeyRef: { name: 'e2e-suite-git', key: 'username' } } },
    { name: 'GIT_PASSWORD', valueFrom: { secretKeyRef: { name: 'e2e-suite-git', key: 'password' } } },
  ]);
  expect(env(suite, 'SUITE_REPO')).toBe('https://github.com/homelab-owner/homelab.git');
  expect(suite.command[2]).toContain('git config --global credential.helper');
});

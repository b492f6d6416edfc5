import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { auditCoverage, CoverageReport, findingCount } from '../../lib/coverage/audit-coverage';
import { CoverageModel } from '../../lib/coverage/coverage-model';
import { scanRepoTree } from '../../lib/coverage/repo-tree';
import { auditHomelabCoverage } from '../../lib/cli/run-coverage';
import {
  encryptedSecret, Files, kustomization, manifest, MONITORING_MANIFESTS, OAUTH_JOB, referenceCheckout, synthesized,
  TempCheckouts, withArgocd, withoutApplications,
} from './fixture';

const checkouts = new TempCheckouts();
afterEach(() => checkouts.cleanup());

/** Audits `files` against the Applications of `config` (or a hand-made model). */
function audit(files: Files, config: HomelabConfig | CoverageModel = REFERENCE_HOMELAB): CoverageReport {
  const model = 'argocd' in config ? synthesized(config).model : config;
  return auditCoverage(model, scanRepoTree(checkouts.write(files)));
}

/** Every finding's message, grouped, for exact assertions. */
function messages(report: CoverageReport): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of ['orphans', 'duplicates', 'missing', 'deadAggregators', 'secondAppOfApps', 'unmatchedSecrets'] as const) {
    if (report[key].length > 0) out[key] = report[key].map((f) => f.message);
  }
  return out;
}

const reference = () => referenceCheckout();

/** The message of a dead aggregator at `path`. */
const dead = (path: string) => `${path}: no Application reaches it; its directory is no Application's source and no reached kustomization lists it.`;

test('a clean checkout of the reference homelab has no findings', () => {
  // WHEN
  const report = audit(reference());
  // THEN
  expect(messages(report)).toEqual({});
  expect(findingCount(report)).toBe(0);
  expect(report.applications).toBe(synthesized().model.applications.length);
  expect(report.files).toBe(Object.keys(reference()).length);
});

test('the platform case: 27 monitoring manifests no Application reconciles when no Application uses k8s/infra/monitoring', () => {
  // GIVEN the catalog before monitoring-config existed: only the CRDs and the values files were used
  const config = withoutApplications('monitoring-config');
  // WHEN
  const report = audit(referenceCheckout(config), config);
  // THEN
  expect(messages(report)).toEqual({
    orphans: [
      'k8s/infra/monitoring/alerts: 12 manifest files (PrometheusRule) that no Application reconciles.',
      'k8s/infra/monitoring/dashboards: 6 manifest files (ConfigMap) that no Application reconciles.',
      'k8s/infra/monitoring/servicemonitors: 9 manifest files (ServiceMonitor) that no Application reconciles.',
    ],
    deadAggregators: [
      dead('k8s/infra/monitoring/alerts/kustomization.yaml'),
      dead('k8s/infra/monitoring/dashboards/kustomization.yaml'),
      dead('k8s/infra/monitoring/kustomization.yaml'),
      dead('k8s/infra/monitoring/servicemonitors/kustomization.yaml'),
    ],
  });
  const orphanManifests = report.orphans.reduce((n, o) => n + o.manifests, 0);
  expect(orphanManifests).toBe(MONITORING_MANIFESTS.alerts + MONITORING_MANIFESTS.servicemonitors + MONITORING_MANIFESTS.dashboards);
  expect(orphanManifests).toBe(27);
  expect(report.orphans[0]).toEqual({
    path: 'k8s/infra/monitoring/alerts', type: 'directory', manifests: 12, kinds: ['PrometheusRule'],
    message: 'k8s/infra/monitoring/alerts: 12 manifest files (PrometheusRule) that no Application reconciles.',
  });
});

test('a directory the monitoring kustomization stops listing becomes an orphan with a dead kustomization', () => {
  // GIVEN monitoring-config's kustomization without dashboards
  const files = { ...reference(), 'k8s/infra/monitoring/kustomization.yaml': kustomization(['alerts', 'servicemonitors']) };
  // THEN
  expect(messages(audit(files))).toEqual({
    orphans: ['k8s/infra/monitoring/dashboards: 6 manifest files (ConfigMap) that no Application reconciles.'],
    deadAggregators: [
      dead('k8s/infra/monitoring/dashboards/kustomization.yaml'),
    ],
  });
});

describe('the Forgejo OAuth setup Job', () => {
  test('is an orphan when no Application reads k8s/infra/cicd', () => {
    const config = withoutApplications('cicd-config');
    expect(messages(audit(referenceCheckout(config), config))).toEqual({
      orphans: ['k8s/infra/cicd: 1 manifest file (Job, ServiceAccount) that no Application reconciles.'],
    });
  });

  test('is an orphan file when the directory\'s kustomization does not list it', () => {
    // GIVEN cicd-config renders a kustomization that lists only the runner config
    const files = {
      ...reference(),
      'k8s/infra/cicd/kustomization.yaml': kustomization(['runner-config.yaml']),
      'k8s/infra/cicd/runner-config.yaml': manifest('ConfigMap', 'runner-config'),
    };
    // THEN
    const report = audit(files);
    expect(messages(report)).toEqual({
      orphans: [`${OAUTH_JOB} (Job, ServiceAccount): not listed in k8s/infra/cicd/kustomization.yaml, which 'cicd-config' renders.`],
    });
    expect(report.orphans[0]).toMatchObject({ path: OAUTH_JOB, type: 'file', manifests: 1, kinds: ['Job', 'ServiceAccount'] });
  });
});

describe('second app-of-apps', () => {
  const STALE = 'applications/sqs/argocd/app.yaml';
  const kmsvc = `${manifest('Application', 'kmsvc-root', 'argoproj.io/v1alpha1')}spec:\n  project: kmsvc\n`;

  test('a stale Application outside the generated argocd/ folder is reported once, not also as an orphan', () => {
    expect(messages(audit({ ...reference(), [STALE]: kmsvc }))).toEqual({
      secondAppOfApps: [
        `${STALE}: Application 'kmsvc-root' outside k8s/generated/argocd, applied by no Application: stale. `
        + 'Delete it, or move its Applications into argocd.applications.',
      ],
    });
  });

  test('an ApplicationSet an Application applies is a live second app-of-apps', () => {
    // GIVEN duckdns's directory also holds an ApplicationSet
    const files = { ...reference(), 'k8s/apps/duckdns/appset.yaml': manifest('ApplicationSet', 'everything', 'argoproj.io/v1alpha1') };
    // THEN
    const report = audit(files);
    expect(messages(report)).toEqual({
      secondAppOfApps: [
        'k8s/apps/duckdns/appset.yaml: ApplicationSet \'everything\' outside k8s/generated/argocd, applied by \'duckdns\': '
        + 'a second app-of-apps. Move its Applications into argocd.applications.',
      ],
    });
    expect(report.secondAppOfApps[0]).toMatchObject({ documents: ['ApplicationSet \'everything\''], appliedBy: ['duckdns'] });
  });

  test('an Application template of a Helm chart an Application reads is applied by that Application', () => {
    // GIVEN an Application whose source is an app-of-apps Helm chart
    const model = synthesized().model;
    const charted = { ...model.sources.find((s) => s.application === 'duckdns')!, application: 'apps', path: 'k8s/apps/apps-chart' };
    const files = {
      ...reference(),
      'k8s/apps/apps-chart/Chart.yaml': 'apiVersion: v2\nname: apps\nversion: 0.1.0\n',
      'k8s/apps/apps-chart/templates/app.yaml': manifest('Application', '{{ .Values.name }}', 'argoproj.io/v1alpha1'),
    };
    // THEN
    const report = audit(files, { ...model, sources: [...model.sources, charted] });
    expect(report.secondAppOfApps).toEqual([expect.objectContaining({
      path: 'k8s/apps/apps-chart/templates/app.yaml', documents: ['Application'], appliedBy: ['apps'],
    })]);
    expect(report.orphans).toEqual([]);
  });

  test('the generated root, projects and Phase-0 bootstrap files are where Applications belong', () => {
    const report = audit(reference());
    expect(Object.keys(reference()).filter((p) => p.startsWith('k8s/generated/bootstrap/')).length).toBeGreaterThan(0);
    expect(report.secondAppOfApps).toEqual([]);
  });
});

test('a dead aggregator kustomization is reported, and what it lists is not followed', () => {
  // GIVEN the old layer aggregator: lists a directory that no longer exists
  const files = { ...reference(), 'k8s/platform/kustomization.yaml': kustomization(['monitoring', '../infra/longhorn']) };
  // THEN
  expect(messages(audit(files))).toEqual({
    deadAggregators: [
      dead('k8s/platform/kustomization.yaml'),
    ],
  });
});

describe('unmanaged directories', () => {
  const experimental = {
    'k8s/apps/llm/kustomization.yaml': kustomization(['ollama.yaml']),
    'k8s/apps/llm/app.yaml': manifest('Application', 'llm', 'argoproj.io/v1alpha1'),
    'k8s/apps/llm/token.enc.yml': encryptedSecret('token'),
    'k8s/apps/forge/runner/deployment.yaml': manifest('Deployment', 'forge', 'apps/v1'),
  };

  test('an experimental directory listed in argocd.unmanaged is never reported', () => {
    expect(REFERENCE_HOMELAB.argocd.unmanaged).toEqual(expect.arrayContaining(['k8s/apps/forge', 'k8s/apps/llm']));
    expect(messages(audit({ ...reference(), ...experimental }))).toEqual({});
  });

  test('the same directories are reported once they leave the list', () => {
    const config = withArgocd({ unmanaged: [] });
    expect(messages(audit({ ...referenceCheckout(config), ...experimental }, config))).toEqual({
      orphans: [
        'k8s/apps/forge/runner: 1 manifest file (Deployment) that no Application reconciles.',
        'k8s/apps/llm: 1 manifest file (Deployment) that no Application reconciles.',
      ],
      deadAggregators: [
        dead('k8s/apps/llm/kustomization.yaml'),
      ],
      secondAppOfApps: [
        'k8s/apps/llm/app.yaml: Application \'llm\' outside k8s/generated/argocd, applied by no Application: stale. '
        + 'Delete it, or move its Applications into argocd.applications.',
      ],
      unmatchedSecrets: [
        'k8s/apps/llm/token.enc.yml: encrypted, but \'sops-secrets\' decrypts only files named *.enc.yaml. Rename it to token.enc.yaml.',
      ],
    });
  });
});

describe('duplicates', () => {
  test('an Application path nested inside another Application\'s recursive source', () => {
    // GIVEN a messaging Application that reads all of k8s/apps/messaging recursively
    const config = withArgocd({
      applications: {
        ...REFERENCE_HOMELAB.argocd.applications,
        messaging: { syncWave: 5, namespace: 'messaging', sources: [{ kind: 'git-path', path: 'k8s/apps/messaging', recurse: true }] },
      },
    });
    // THEN
    const report = audit(referenceCheckout(config), config);
    expect(messages(report)).toEqual({
      duplicates: ['kafka-cluster', 'management-service', 'queue-crd'].map((app) =>
        `k8s/apps/messaging/${app}: the source of '${app}', inside the recursive source k8s/apps/messaging of 'messaging'; `
        + 'both render its manifests. Exclude it from \'messaging\' or drop one source.'),
    });
    expect(report.duplicates[0]).toMatchObject({ reason: 'nested-in-recursive', applications: ['kafka-cluster', 'messaging'] });
  });

  test('two Applications with the same repo and path', () => {
    // GIVEN a second Application on duckdns's path (synthesis rejects this config, so the model is made by hand)
    const model = synthesized().model;
    const duckdns = model.sources.find((s) => s.application === 'duckdns')!;
    const copy = { ...duckdns, application: 'duckdns-copy', configPath: 'argocd.applications.duckdns-copy.sources[0].path' };
    // WHEN
    const report = audit(reference(), { ...model, sources: [...model.sources, copy] });
    // THEN
    expect(messages(report)).toEqual({
      duplicates: [
        `k8s/apps/duckdns: the source of 2 Applications ('duckdns', 'duckdns-copy') in ${REFERENCE_HOMELAB.git.githubSeedUrl}; `
        + 'keep exactly one Application per directory.',
      ],
    });
    expect(report.duplicates[0]).toMatchObject({ reason: 'same-path', applications: ['duckdns', 'duckdns-copy'] });
  });

  test('a kustomization that pulls in another Application\'s manifests', () => {
    // GIVEN monitoring-config's kustomization also lists a CRD that prometheus-crds owns
    const files = {
      ...reference(),
      'k8s/infra/monitoring/kustomization.yaml': kustomization([...Object.keys(MONITORING_MANIFESTS), 'crds/crd-servicemonitors.yaml']),
    };
    // THEN
    expect(messages(audit(files))).toEqual({
      duplicates: [
        'k8s/infra/monitoring/crds: 1 manifest file rendered by 2 Applications: \'monitoring-config\' (through '
        + 'k8s/infra/monitoring/kustomization.yaml), \'prometheus-crds\' (its source path); keep exactly one.',
      ],
    });
  });
});

describe('missing', () => {
  test('a missing values file: the sync would fail', () => {
    const files = reference();
    delete files['k8s/infra/monitoring/prometheus-values.yaml'];
    const report = audit(files);
    expect(messages(report)).toEqual({
      missing: [
        '\'prometheus\' reads the values file k8s/infra/monitoring/prometheus-values.yaml through $values '
        + '(argocd.applications.prometheus.sources[0].valueFiles[0]), which does not exist; the sync would fail.',
      ],
    });
    expect(report.missing[0]).toEqual({
      path: 'k8s/infra/monitoring/prometheus-values.yaml',
      type: 'values-file',
      applications: ['prometheus'],
      configPath: 'argocd.applications.prometheus.sources[0].valueFiles[0]',
      generated: false,
      message: report.missing[0].message,
    });
  });

  test('a missing Application path: "app path does not exist"', () => {
    const files = reference();
    delete files['k8s/apps/duckdns/duckdns.yaml'];
    expect(messages(audit(files))).toEqual({
      missing: [
        '\'duckdns\' reads k8s/apps/duckdns (argocd.applications.duckdns.sources[0].path), which does not exist; '
        + 'Argo CD would fail with "app path does not exist".',
      ],
    });
  });

  test('a staged deletion of a directory a live kustomization lists', () => {
    // GIVEN alerts/ deleted while monitoring-config's kustomization still lists it
    const files = Object.fromEntries(Object.entries(reference()).filter(([p]) => !p.startsWith('k8s/infra/monitoring/alerts/')));
    // THEN
    const report = audit(files);
    expect(messages(report)).toEqual({
      missing: [
        'k8s/infra/monitoring/kustomization.yaml lists \'alerts\' (k8s/infra/monitoring/alerts), which does not exist; '
        + 'kustomize build fails for \'monitoring-config\'.',
      ],
    });
    expect(report.missing[0]).toEqual({
      path: 'k8s/infra/monitoring/alerts', type: 'kustomization-resource', applications: ['monitoring-config'],
      referencedBy: 'k8s/infra/monitoring/kustomization.yaml', generated: false, message: report.missing[0].message,
    });
  });

  test('a kustomization resource that is a directory without a kustomization is reported once', () => {
    // GIVEN dashboards/ without its kustomization.yaml while monitoring-config's kustomization lists it
    const files = reference();
    delete files['k8s/infra/monitoring/dashboards/kustomization.yaml'];
    // THEN one missing finding, and the dashboards are not also orphans
    expect(messages(audit(files))).toEqual({
      missing: [
        'k8s/infra/monitoring/kustomization.yaml lists \'dashboards\' (k8s/infra/monitoring/dashboards), a directory without a '
        + 'kustomization file; kustomize build fails for \'monitoring-config\'.',
      ],
    });
  });

  test('generated paths are checked too: they exist once dist/ is committed at git.distPath', () => {
    // GIVEN a checkout where dist/ was never committed
    const files = Object.fromEntries(Object.entries(reference()).filter(([p]) => !p.startsWith('k8s/generated/')));
    // THEN
    const report = audit(files);
    const hint = ' It is generated: commit the synthesized dist/ to k8s/generated.';
    const path = (app: string, p: string, field: string) =>
      `'${app}' reads ${p} (${field}), which does not exist; Argo CD would fail with "app path does not exist".${hint}`;
    expect(messages(report).missing).toEqual([
      // the delivery apps' overlays list their generated folders
      `k8s/apps/hello/kustomization.yaml lists '../../generated/apps/hello' (k8s/generated/apps/hello), which does not exist; kustomize build fails for 'hello'.${hint}`,
      `k8s/apps/status/kustomization.yaml lists '../../generated/apps/status' (k8s/generated/apps/status), which does not exist; kustomize build fails for 'status'.${hint}`,
      path('root', 'k8s/generated/argocd/apps', 'git.distPath'),
      path('projects', 'k8s/generated/argocd/projects', 'git.distPath'),
      path('backup-checks', 'k8s/generated/backup-checks', 'postgresClusters.<name>.backup'),
      // the values file the runbook installed Cilium with, which the adopting Application reads
      '\'cilium\' reads the values file k8s/generated/bootstrap/02-cilium/values.yaml through $values (cilium.adoptedBy), which does '
        + `not exist; the sync would fail.${hint}`,
      path('data-schemas', 'k8s/generated/data-schemas', 'argocd.dataSchemas'),
      // the delivery parts' Applications (their config section, not an argocd.applications entry)
      path('argo-rollouts', 'k8s/generated/delivery/argo-rollouts', 'delivery.rollouts'),
      path('argocd-image-updater', 'k8s/generated/delivery/argocd-image-updater', 'delivery.imageUpdater'),
      path('e2e-smoke', 'k8s/generated/delivery/e2e-smoke', 'delivery.e2e.smoke'),
      path('forgejo-runner', 'k8s/generated/delivery/forgejo-runner', 'delivery.build'),
      path('kyverno-policies', 'k8s/generated/delivery/kyverno-policies', 'delivery.kyverno'),
      path('forgejo-mirror', 'k8s/generated/forgejo-mirror', 'argocd.forgejoMirror'),
      '\'kyverno\' reads the values file k8s/generated/values/kyverno.yaml through $values (delivery.kyverno), which does not exist; '
        + `the sync would fail.${hint}`,
      '\'temporal\' reads the values file k8s/generated/values/temporal.yaml through $values (argocd.temporal), which does not exist; '
        + `the sync would fail.${hint}`,
    ]);
    expect(report.missing.every((m) => m.generated)).toBe(true);
  });
});

describe('encrypted files the sops-secrets Application misses', () => {
  test('misnamed files, by name or by their sops: block; the .sops.yaml config is not a secret', () => {
    const files = {
      ...reference(),
      'k8s/infra/iam/vault-token.enc.yml': encryptedSecret('vault-token'),
      'k8s/infra/iam/authentik.sops.yaml': encryptedSecret('authentik'),
      'k8s/secrets/iam/plain-name.yaml': encryptedSecret('plain-name'),
      'k8s/secrets/iam/.sops.yaml': 'creation_rules: []\n',
    };
    const report = audit(files);
    expect(messages(report)).toEqual({
      unmatchedSecrets: [
        'k8s/infra/iam/authentik.sops.yaml: encrypted, but \'sops-secrets\' decrypts only files named *.enc.yaml. Rename it to authentik.enc.yaml.',
        'k8s/infra/iam/vault-token.enc.yml: encrypted, but \'sops-secrets\' decrypts only files named *.enc.yaml. Rename it to vault-token.enc.yaml.',
        'k8s/secrets/iam/plain-name.yaml: encrypted, but \'sops-secrets\' decrypts only files named *.enc.yaml. Rename it to plain-name.enc.yaml.',
      ],
    });
    expect(report.unmatchedSecrets.map((s) => s.reason)).toEqual(['name', 'name', 'name']);
  });

  test('*.enc.yaml outside the plugin\'s path', () => {
    // GIVEN a sops-secrets source narrowed to k8s/secrets (the reference reads the whole repository)
    const model: CoverageModel = { ...synthesized().model, sopsPaths: ['k8s/secrets'] };
    const files = { ...reference(), 'k8s/infra/cicd/oauth-client.enc.yaml': encryptedSecret('oauth-client') };
    // THEN
    const report = audit(files, model);
    expect(messages(report)).toEqual({
      unmatchedSecrets: [
        'k8s/infra/cicd/oauth-client.enc.yaml: outside \'k8s/secrets\', where \'sops-secrets\' finds *.enc.yaml files; it is never applied.',
      ],
    });
    expect(report.unmatchedSecrets[0].reason).toBe('outside-path');
  });

  test('an encrypted file a kustomization also lists is rendered twice', () => {
    const files = {
      ...reference(),
      'k8s/infra/cicd/kustomization.yaml': kustomization(['forgejo-oauth-setup-job.yaml', 'oauth-client.enc.yaml']),
      'k8s/infra/cicd/oauth-client.enc.yaml': encryptedSecret('oauth-client'),
    };
    expect(messages(audit(files))).toEqual({
      duplicates: [
        'k8s/infra/cicd: 1 manifest file rendered by 2 Applications: \'cicd-config\' (its source path), '
        + '\'sops-secrets\' (*.enc.yaml under its plugin path); keep exactly one.',
      ],
    });
  });
});

describe('directory sources', () => {
  test('a manifest the exclude glob skips is an orphan file with the reason', () => {
    // GIVEN a manifest in k8s/infra/iam named like the values files iam-jobs excludes
    const files = { ...reference(), 'k8s/infra/iam/migrations-values.yaml': manifest('Job', 'authentik-migrations', 'batch/v1') };
    expect(messages(audit(files))).toEqual({
      orphans: [
        'k8s/infra/iam/migrations-values.yaml (Job): excluded by directory.exclude \'{*-values.yaml,*.enc.yaml}\' of \'iam-jobs\'.',
      ],
    });
  });

  test('a subdirectory of a plain directory source is not read without recurse', () => {
    const files = { ...reference(), 'k8s/apps/duckdns/extra/cronjob.yaml': manifest('CronJob', 'refresh', 'batch/v1') };
    expect(messages(audit(files))).toEqual({
      orphans: ['k8s/apps/duckdns/extra: 1 manifest file (CronJob) that no Application reconciles.'],
    });
  });

  test('a Helm chart no Application reads is one orphan, its templates are part of it', () => {
    const files = {
      ...reference(),
      'k8s/infra/cicd/charts/forgejo-runner/Chart.yaml': 'apiVersion: v2\nname: forgejo-runner\nversion: 0.1.0\n',
      'k8s/infra/cicd/charts/forgejo-runner/templates/deployment.yaml': manifest('Deployment', '{{ .Release.Name }}', 'apps/v1'),
      'k8s/infra/cicd/charts/forgejo-runner/templates/sub/kustomization.yaml': kustomization(['x.yaml']),
    };
    expect(messages(audit(files))).toEqual({
      orphans: ['k8s/infra/cicd/charts/forgejo-runner: Helm chart that no Application reconciles.'],
    });
  });
});

describe('the catalog\'s Docker-in-Docker runner folder, superseded by delivery.build', () => {
  const dind = {
    'k8s/infra/forgejo-runner/deployment.yaml': manifest('Deployment', 'forgejo-runner', 'apps/v1'),
    'k8s/infra/forgejo-runner/dind-config.yaml': manifest('ConfigMap', 'dind'),
  };

  test('left in the checkout, it is no orphan while the generated runner replaces it', () => {
    expect(messages(audit({ ...reference(), ...dind }))).toEqual({});
  });

  test('fails without delivery: then nothing replaces it, and it is an orphan like any unreconciled folder', () => {
    // GIVEN the reference homelab without its delivery section (so no generated runner)
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, delivery: undefined };
    // THEN
    expect(messages(audit({ ...referenceCheckout(config), ...dind }, config))).toEqual({
      orphans: ['k8s/infra/forgejo-runner: 2 manifest files (ConfigMap, Deployment) that no Application reconciles.'],
    });
  });
});

test('auditHomelabCoverage synthesizes the config and scans the checkout', () => {
  const root = checkouts.write({ ...reference(), 'k8s/apps/duckdns/extra/cronjob.yaml': manifest('CronJob', 'refresh', 'batch/v1') });
  const report = auditHomelabCoverage(REFERENCE_HOMELAB, root);
  expect(report.repo).toBe(root);
  expect(report.orphans.map((o) => o.path)).toEqual(['k8s/apps/duckdns/extra']);
});

test('the report does not depend on the order files were written in', () => {
  const files = { ...reference(), 'k8s/platform/kustomization.yaml': kustomization(['x']), 'k8s/apps/duckdns/extra/a.yaml': manifest('Job', 'a') };
  const reversed = Object.fromEntries(Object.entries(files).reverse());
  const strip = (r: CoverageReport) => ({ ...r, repo: '' });
  expect(strip(audit(reversed))).toEqual(strip(audit(files)));
});

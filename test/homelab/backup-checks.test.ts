import YAML from 'yaml';
import backupExample from '../../examples/backup.config';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

function docs(content: string | undefined): any[] {
  if (content === undefined) throw new Error('no such file');
  return YAML.parseAllDocuments(content).map((d) => d.toJSON()).filter((d) => d);
}

/** The backup example with its catalog Applications changed by `edit`. */
function withCatalog(edit: (apps: Record<string, any>) => void, base: HomelabConfig = backupExample): HomelabConfig {
  const applications = structuredClone(base.argocd!.applications) as Record<string, any>;
  edit(applications);
  return { ...base, argocd: { ...base.argocd!, applications } };
}

describe('backup-checks: alerts and restore drills of every cluster with backups (examples/backup.config.ts)', () => {
  // synthesizeHomelab validates every object against the pinned schemas (prometheus-operator v0.93.1 CRDs among them).
  const { tree, argocd } = synthesizeHomelab(backupExample);

  test('one Application, in the wave after the kube-prometheus-stack Application and sops-secrets it depends on', () => {
    const app = argocd.backupChecks!;
    expect(app.name).toBe('backup-checks');
    expect(app.dependsOn.map((a) => a.name)).toEqual(['prometheus', 'sops-secrets']);
    expect(app.syncWave).toBe(argocd.applications.get('prometheus')!.syncWave + 1);
    const [rendered] = docs(tree.get('argocd/apps/backup-checks.yaml'));
    expect(rendered.metadata.annotations['argocd.argoproj.io/sync-wave']).toBe(String(app.syncWave));
    expect(rendered.spec.destination.namespace).toBe('restore-drill');
    expect(rendered.spec.syncPolicy.syncOptions).toEqual(['CreateNamespace=true']);
    expect(rendered.spec.syncPolicy.managedNamespaceMetadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });

  test('the Phase-0 forgejo-db and the Argo CD-delivered ddb-cluster both get a PodMonitor, alerts and a drill', () => {
    expect(docs(tree.get('backup-checks/forgejo-db.yaml')).map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'PodMonitor/cicd/forgejo-db', 'PrometheusRule/cicd/forgejo-db-backup-alerts',
      'ObjectStore/restore-drill/forgejo-db-drill-source', 'ConfigMap/restore-drill/forgejo-db-drill-cluster',
      'ServiceAccount/restore-drill/forgejo-db-drill', 'Role/restore-drill/forgejo-db-drill', 'RoleBinding/restore-drill/forgejo-db-drill',
      'CronJob/restore-drill/forgejo-db-drill', 'PrometheusRule/restore-drill/forgejo-db-drill-alerts',
    ]);
    const ddb = docs(tree.get('backup-checks/ddb-cluster.yaml'));
    expect(ddb.map((o) => o.kind)).toContain('CronJob');
    const rule = ddb.find((o) => o.metadata.name === 'ddb-cluster-backup-alerts');
    // '0 30 3 * * *': daily, so 24 h + 2 h.
    expect(rule.spec.groups[0].rules.find((r: any) => r.alert === 'CnpgBackupTooOld').expr).toContain('> 93600 and');
  });

  test('every PodMonitor and PrometheusRule carries the label the chart\'s Prometheus selects: release=<the Application name>', () => {
    const objects = [...tree].filter(([file]) => file.startsWith('backup-checks/')).flatMap(([, c]) => docs(c));
    const monitoring = objects.filter((o) => o.kind === 'PodMonitor' || o.kind === 'PrometheusRule');
    expect(monitoring).toHaveLength(6);
    expect(monitoring.every((o) => o.metadata.labels.release === 'prometheus')).toBe(true);
  });

  test('the drill restores the server name each cluster archives under now', () => {
    const forgejo = docs(tree.get('backup-checks/forgejo-db.yaml')).find((o) => o.kind === 'ConfigMap');
    const cluster = JSON.parse(forgejo.data['cluster.json']);
    expect(cluster.spec.externalClusters[0].plugin.parameters.serverName).toBe('forgejo-db-2');
    expect(cluster.spec.plugins).toBeUndefined();
  });

  test('the object-store Secrets the drills read are listed for the drill namespace', () => {
    expect(argocd.secretReferences.filter((s) => s.namespace === 'restore-drill')).toEqual([
      { namespace: 'restore-drill', name: 'ddb-cluster-backup-s3', keys: ['ACCESS_KEY_ID', 'ACCESS_SECRET_KEY'], usedBy: 'ObjectStore ddb-cluster-drill-source' },
      { namespace: 'restore-drill', name: 'forgejo-db-backup-s3', keys: ['ACCESS_KEY_ID', 'ACCESS_SECRET_KEY'], usedBy: 'ObjectStore forgejo-db-drill-source' },
    ]);
  });
});

describe('backup-checks follows the config', () => {
  test('no backups, no Application', () => {
    const withoutBackups: HomelabConfig = {
      ...REFERENCE_HOMELAB,
      postgresClusters: Object.fromEntries(Object.entries(REFERENCE_HOMELAB.postgresClusters).map(([n, c]) => [n, { ...c, backup: undefined }])),
    };
    const { tree, argocd } = synthesizeHomelab(withoutBackups);
    expect(argocd.backupChecks).toBeUndefined();
    expect([...tree.keys()].filter((f) => f.includes('backup-checks'))).toEqual([]);
  });

  test('a drill turned off leaves the alerts', () => {
    const config: HomelabConfig = {
      ...backupExample,
      postgresClusters: {
        ...backupExample.postgresClusters,
        'ddb-cluster': { ...backupExample.postgresClusters!['ddb-cluster'], backup: { ...backupExample.postgresClusters!['ddb-cluster'].backup!, restoreDrill: { enabled: false } } },
      },
    };
    const { argocd } = synthesizeHomelab(config);
    expect(argocd.backupChecks!.drills.map((d) => d.name)).toEqual(['forgejo-db-drill']);
    expect(argocd.backupChecks!.alerts.map((a) => a.cluster.name)).toEqual(['ddb-cluster', 'forgejo-db']);
  });

  test('the wave moves with the Prometheus Application, and the label with its release name', () => {
    const config = withCatalog((apps) => {
      apps.prometheus.syncWave = 3;
      apps['monitoring-config'].syncWave = 4;
      apps.prometheus.sources[0].releaseName = 'kps';
    });
    const { tree, argocd } = synthesizeHomelab(config);
    expect(argocd.backupChecks!.syncWave).toBe(4);
    expect(docs(tree.get('backup-checks/forgejo-db.yaml'))[0].metadata.labels.release).toBe('kps');
  });

  test('without kube-prometheus-stack in the catalog: drills without alert rules, in the wave after sops-secrets', () => {
    const config = withCatalog((apps) => {
      for (const name of Object.keys(apps)) {
        if (apps[name].sources.some((s: any) => s.chart === 'kube-prometheus-stack')) delete apps[name];
        else apps[name].dependsOn = (apps[name].dependsOn ?? []).filter((d: string) => d !== 'prometheus');
      }
      // The monitoring config Application is about that Prometheus too.
      delete apps['monitoring-config'];
    });
    // The app tier's canary analyses query that Prometheus too (delivery.rollouts), so the delivery goes with it.
    const { tree, argocd } = synthesizeHomelab({ ...config, delivery: undefined });
    const app = argocd.backupChecks!;
    expect(app.alerts).toEqual([]);
    expect(app.dependsOn.map((a) => a.name)).toEqual(['sops-secrets']);
    expect(app.syncWave).toBe(argocd.sopsSecrets.syncWave + 1);
    const kinds = [...tree].filter(([f]) => f.startsWith('backup-checks/')).flatMap(([, c]) => docs(c)).map((o) => o.kind);
    expect(kinds).not.toContain('PrometheusRule');
    expect(kinds).not.toContain('PodMonitor');
    expect(kinds).toContain('CronJob');
  });
});

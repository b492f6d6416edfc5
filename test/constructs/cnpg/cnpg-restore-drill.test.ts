import { Chart, Duration, Testing } from 'cdk8s';
import { BarmanObjectStore } from '../../../lib/constructs/cnpg/barman-object-store';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { CnpgRestoreDrill, CnpgRestoreDrillProps } from '../../../lib/constructs/cnpg/cnpg-restore-drill';
import { IMAGES } from '../../../lib/shared/pins';
import { find } from '../../util';
import { problemsOfObjects } from '../../validation/util';

function cluster(chart: Chart, options: { archive?: boolean; name?: string } = {}): CnpgCluster {
  const store = new BarmanObjectStore(chart, 'Store', {
    name: 'forgejo-db-backup', namespace: 'cicd', endpointUrl: 'https://s3.example.net', bucket: 'homelab-pg', bucketPath: 'cnpg',
    accessKeyId: { name: 'backup-s3', key: 'ACCESS_KEY_ID' }, secretAccessKey: { name: 'backup-s3', key: 'ACCESS_SECRET_KEY' },
    retentionPolicy: '30d',
  });
  return new CnpgCluster(chart, 'Db', {
    name: options.name ?? 'forgejo-db', namespace: 'cicd', initdbDatabase: 'forgejo', initdbOwner: 'forgejo', storageSize: '20Gi',
    walArchive: options.archive === false ? undefined : { objectStore: store, serverName: 'forgejo-db-2' },
  });
}

describe('CnpgRestoreDrill', () => {
  test('defaults: weekly at 05:00 on Sunday, one hour to recover, the pinned kubectl, no alerts', () => {
    const chart = Testing.chart();
    const drill = new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart), namespace: 'restore-drill' });
    expect(drill.schedule).toBe('0 5 * * 0');
    expect(drill.timeout.toSeconds()).toBe(3600);
    expect(drill.rule).toBeUndefined();
    expect(drill.name).toBe('forgejo-db-drill');
    const cronJob = find(Testing.synth(chart), 'CronJob', 'forgejo-db-drill');
    expect(cronJob.spec.schedule).toBe('0 5 * * 0');
    const pod = cronJob.spec.jobTemplate.spec.template.spec;
    expect([...pod.initContainers, ...pod.containers].every((c: any) => c.image === IMAGES.kubectl)).toBe(true);
    expect(Testing.synth(chart).filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
  });

  test('all props', () => {
    const chart = Testing.chart();
    const props: Required<CnpgRestoreDrillProps> = {
      cluster: cluster(chart), namespace: 'drills', schedule: '30 4 * * 6', timeout: Duration.minutes(30),
      alertSelectorLabels: { release: 'kps' }, image: 'registry.k8s.io/kubectl:v1.30.0', runbook: 'the wiki',
    };
    const drill = new CnpgRestoreDrill(chart, 'Drill', props);
    const manifests = Testing.synth(chart);
    const cronJob = find(manifests, 'CronJob', 'forgejo-db-drill');
    expect(cronJob.metadata.namespace).toBe('drills');
    expect(cronJob.spec.schedule).toBe('30 4 * * 6');
    expect(cronJob.spec.jobTemplate.spec.template.spec.containers[0].image).toBe('registry.k8s.io/kubectl:v1.30.0');
    expect(drill.staleAfterSeconds).toBe(7 * 86400 + 1800 + 3600);
    const rule = find(manifests, 'PrometheusRule', 'forgejo-db-drill-alerts');
    expect(rule.metadata.labels.release).toBe('kps');
    expect(rule.spec.groups[0].rules[0].annotations.description).toMatch(/See the wiki\.$/);
  });

  test('the throwaway cluster recovers the production server name through its own copy of the ObjectStore without retention, and archives nowhere', () => {
    const chart = Testing.chart();
    const drill = new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart), namespace: 'restore-drill' });
    const m = drill.drillClusterManifest;
    expect(m.kind).toBe('Cluster');
    expect(m.metadata).toMatchObject({ name: 'forgejo-db-drill', namespace: 'restore-drill' });
    // No spec.plugins: CNPG archives WAL only through the plugins listed there.
    expect(m.spec.plugins).toBeUndefined();
    expect(m.spec.bootstrap).toEqual({ recovery: { source: 'forgejo-db-2', database: 'forgejo', owner: 'forgejo' } });
    expect(m.spec.externalClusters).toEqual([{
      name: 'forgejo-db-2',
      plugin: { name: 'barman-cloud.cloudnative-pg.io', parameters: { barmanObjectName: 'forgejo-db-drill-source', serverName: 'forgejo-db-2' } },
    }]);
    expect(m.spec.instances).toBe(1);
    expect(m.spec.storage).toEqual({ size: '20Gi' });
    const manifests = Testing.synth(chart);
    const source = find(manifests, 'ObjectStore', 'forgejo-db-drill-source');
    expect(source.metadata.namespace).toBe('restore-drill');
    expect(source.spec.configuration.destinationPath).toBe('s3://homelab-pg/cnpg/');
    // Retention deletes backups: the drill's copy never has a policy, though the production store has one.
    expect(source.spec.retentionPolicy).toBeUndefined();
    expect(find(manifests, 'ObjectStore', 'forgejo-db-backup').spec.retentionPolicy).toBe('30d');
    // The manifest the Job creates is the ConfigMap's, and it is valid against the pinned CNPG CRD.
    const configMap = find(manifests, 'ConfigMap', 'forgejo-db-drill-cluster');
    expect(JSON.parse(configMap.data['cluster.json'])).toEqual(m);
    expect(problemsOfObjects(m)).toEqual([]);
  });

  test('the Job: remove a leftover, create, wait for Ready, query, remove; one attempt, never two at once', () => {
    const chart = Testing.chart();
    new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart), namespace: 'restore-drill' });
    const cronJob = find(Testing.synth(chart), 'CronJob', 'forgejo-db-drill');
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
    const job = cronJob.spec.jobTemplate.spec;
    expect(job.backoffLimit).toBe(0);
    expect(job.activeDeadlineSeconds).toBe(600 * 2 + 3600 + 600);
    const pod = job.template.spec;
    expect(pod.serviceAccountName).toBe('forgejo-db-drill');
    const ns = '--namespace=restore-drill';
    const cl = 'clusters.postgresql.cnpg.io/forgejo-db-drill';
    const remove = ['delete', ns, cl, '--ignore-not-found', '--wait=true', '--timeout=600s'];
    expect(pod.initContainers.map((c: any) => [c.name, c.args])).toEqual([
      ['remove-previous', remove],
      ['create', ['create', ns, '--filename=/drill/cluster.json']],
      ['wait-ready', ['wait', ns, '--for=condition=Ready', '--timeout=3600s', cl]],
      ['query', ['exec', ns, 'service/forgejo-db-drill-rw', '--container=postgres', '--', 'psql', '--no-psqlrc', '--set=ON_ERROR_STOP=1',
        '--dbname=forgejo', expect.stringMatching(/^--command=DO \$\$ BEGIN IF pg_catalog\.pg_is_in_recovery\(\) THEN RAISE EXCEPTION/)]],
    ]);
    expect(pod.containers.map((c: any) => [c.name, c.args])).toEqual([['remove', remove]]);
    // No shell anywhere: the kubectl image is distroless.
    expect([...pod.initContainers, ...pod.containers].some((c: any) => c.command !== undefined)).toBe(false);
    expect(pod.volumes).toContainEqual({ name: 'manifest', configMap: { name: 'forgejo-db-drill-cluster' } });
  });

  test('RBAC: a Role in the drill namespace, limited to CNPG Clusters and what kubectl exec needs', () => {
    const chart = Testing.chart();
    new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart), namespace: 'restore-drill' });
    const manifests = Testing.synth(chart);
    expect(manifests.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding')).toEqual([]);
    const role = find(manifests, 'Role', 'forgejo-db-drill');
    expect(role.metadata.namespace).toBe('restore-drill');
    expect(role.rules).toEqual([
      { apiGroups: ['postgresql.cnpg.io'], resources: ['clusters'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['services'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
    ]);
    const binding = find(manifests, 'RoleBinding', 'forgejo-db-drill');
    expect(binding.metadata.namespace).toBe('restore-drill');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'forgejo-db-drill', namespace: 'restore-drill' }]);
    // Nothing of the drill is written into the production namespace but the cluster's own objects.
    const drillObjects = manifests.filter((o) => o.metadata.name.startsWith('forgejo-db-drill'));
    expect(drillObjects.every((o) => o.metadata.namespace === 'restore-drill')).toBe(true);
  });

  test('the CronJob comes after its ServiceAccount, Role, RoleBinding, ConfigMap and ObjectStore', () => {
    const chart = Testing.chart();
    new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart), namespace: 'restore-drill' });
    const order = Testing.synth(chart).map((o) => `${o.kind}/${o.metadata.name}`);
    const cron = order.indexOf('CronJob/forgejo-db-drill');
    for (const before of ['ServiceAccount/forgejo-db-drill', 'Role/forgejo-db-drill', 'RoleBinding/forgejo-db-drill',
      'ConfigMap/forgejo-db-drill-cluster', 'ObjectStore/forgejo-db-drill-source']) {
      expect(order.indexOf(before)).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(before)).toBeLessThan(cron);
    }
  });

  test('alerts: the last drill failed (scheduled after the last success, none active), or none succeeded for too long', () => {
    const chart = Testing.chart();
    new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart), namespace: 'restore-drill', alertSelectorLabels: { release: 'prometheus' } });
    const rule = find(Testing.synth(chart), 'PrometheusRule', 'forgejo-db-drill-alerts');
    const [failed, stale] = rule.spec.groups[0].rules;
    const sel = '{namespace="restore-drill", cronjob="forgejo-db-drill"}';
    expect(failed.alert).toBe('CnpgRestoreDrillFailed');
    expect(failed.expr).toBe(`kube_cronjob_status_last_schedule_time${sel} > kube_cronjob_status_last_successful_time${sel} ` +
      `and on (namespace, cronjob) kube_cronjob_status_active${sel} == 0`);
    expect(stale.alert).toBe('CnpgRestoreDrillNotSucceeded');
    // A week, the hour the recovery may take, and an hour more.
    const limit = 7 * 86400 + 3600 + 3600;
    expect(stale.expr).toBe(`time() - kube_cronjob_status_last_successful_time${sel} > ${limit} or (time() - kube_cronjob_created${sel} > ` +
      `${limit} unless on (namespace, cronjob) kube_cronjob_status_last_successful_time${sel})`);
    expect(stale.annotations.summary).toBe('No restore drill of forgejo-db succeeded for 170h');
    expect([failed.labels, stale.labels]).toEqual([{ severity: 'warning' }, { severity: 'warning' }]);
    expect(problemsOfObjects(rule)).toEqual([]);
  });

  test('throws for a cluster without walArchive', () => {
    const chart = Testing.chart();
    expect(() => new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart, { archive: false }), namespace: 'restore-drill' }))
      .toThrow("Drill: cluster 'forgejo-db' has no 'walArchive', so there is no backup to restore.");
  });

  test('throws when the drill would run in the cluster\'s own namespace', () => {
    const chart = Testing.chart();
    expect(() => new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart), namespace: 'cicd' }))
      .toThrow("Drill: 'namespace' is 'cicd', the cluster's own namespace");
  });

  test('throws for a six-field schedule', () => {
    const chart = Testing.chart();
    expect(() => new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart), namespace: 'restore-drill', schedule: '0 0 5 * * 0' }))
      .toThrow("Drill: 'schedule' '0 0 5 * * 0' has 6 fields, like CNPG's ScheduledBackup (seconds first)");
  });

  test('throws when the CronJob name would be too long for its Jobs', () => {
    const chart = Testing.chart();
    expect(() => new CnpgRestoreDrill(chart, 'Drill', { cluster: cluster(chart, { name: 'a'.repeat(47) }), namespace: 'restore-drill' }))
      .toThrow(`the drill's name '${'a'.repeat(47)}-drill' has 53 characters; a CronJob's may have 52.`);
  });
});

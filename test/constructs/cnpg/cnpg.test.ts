import { Duration, Testing } from 'cdk8s';
import { CnpgCluster, CnpgClusterProps } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { CnpgDatabase } from '../../../lib/constructs/cnpg/cnpg-database';
import { WaitForPostgresJob } from '../../../lib/constructs/cnpg/wait-for-postgres-job';
import { IMAGES } from '../../../lib/shared/pins';

function find(manifests: any[], kind: string, name: string): any {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found;
}

describe('CnpgCluster', () => {
  test('defaults: one instance, app database, preferred anti-affinity and control-plane tolerations', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd' });
    expect(cluster.instances).toBe(1);
    expect(cluster.initdbDatabase).toBe('app');
    expect(cluster.initdbOwner).toBe('app');
    expect(cluster.storageSize).toBe('10Gi');
    expect(cluster.appSecretName).toBe('forgejo-db-app');
    expect(cluster.readWriteHost).toBe('forgejo-db-rw.cicd.svc');
    const spec = find(Testing.synth(chart), 'Cluster', 'forgejo-db').spec;
    expect(spec.affinity).toEqual({
      enablePodAntiAffinity: true,
      podAntiAffinityType: 'preferred',
      topologyKey: 'kubernetes.io/hostname',
      tolerations: [
        { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
      ],
    });
    expect(spec.imageName).toBe(IMAGES.postgres);
    expect(spec.managed).toBeUndefined();
    expect(spec.resources).toEqual({ requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '1Gi' } });
  });

  test('all props', () => {
    const chart = Testing.chart();
    const props: Required<CnpgClusterProps> = {
      name: 'ddb-cluster', namespace: 'ddb', instances: 3, initdbDatabase: 'app', initdbOwner: 'app', storageSize: '20Gi',
      storageClass: 'longhorn', controlPlaneFriendly: false, managedRoles: ['temporal', 'authentik'], imageName: 'example/pg:1',
      cpuRequest: '250m', memoryRequest: '1Gi', memoryLimit: '2Gi',
    };
    const cluster = new CnpgCluster(chart, 'Db', props);
    const spec = find(Testing.synth(chart), 'Cluster', 'ddb-cluster').spec;
    expect(spec.instances).toBe(3);
    expect(spec.storage).toEqual({ size: '20Gi', storageClass: 'longhorn' });
    expect(spec.affinity).toBeUndefined();
    expect(spec.imageName).toBe('example/pg:1');
    expect(spec.resources).toEqual({ requests: { cpu: '250m', memory: '1Gi' }, limits: { memory: '2Gi' } });
    expect(spec.managed.roles).toEqual([
      { name: 'authentik', ensure: 'present', login: true, passwordSecret: { name: 'ddb-cluster-authentik' } },
      { name: 'temporal', ensure: 'present', login: true, passwordSecret: { name: 'ddb-cluster-temporal' } },
    ]);
    expect(cluster.roles).toEqual(['app', 'authentik', 'temporal']);
  });

  test('throws for zero instances', () => {
    expect(() => new CnpgCluster(Testing.chart(), 'Db', { name: 'x', namespace: 'y', instances: 0 })).toThrow(
      'test/Db: \'instances\' must be an integer of at least 1, got 0.');
  });
});

describe('CnpgDatabase', () => {
  test('derives the Kubernetes name and lives in the cluster namespace, after the cluster', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'ddb-cluster', namespace: 'ddb', managedRoles: ['temporal'] });
    const db = new CnpgDatabase(chart, 'Vis', { cluster, pgName: 'temporal_visibility', owner: 'temporal' });
    expect(db.name).toBe('temporal-visibility');
    expect(db.reclaimPolicy).toBe('retain');
    const manifests = Testing.synth(chart);
    const json = find(manifests, 'Database', 'temporal-visibility');
    expect(json.metadata.namespace).toBe('ddb');
    expect(json.spec).toEqual({
      name: 'temporal_visibility', owner: 'temporal', cluster: { name: 'ddb-cluster' }, databaseReclaimPolicy: 'retain',
    });
    expect(manifests.indexOf(json)).toBeGreaterThan(manifests.findIndex((m) => m.kind === 'Cluster'));
  });

  test('throws when the owner is not a role of the cluster', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'ddb-cluster', namespace: 'ddb' });
    expect(() => new CnpgDatabase(chart, 'T', { cluster, pgName: 'temporal', owner: 'temporal' })).toThrow(
      'test/T: \'owner\' (\'temporal\') is not a role of cluster \'ddb-cluster\' (roles: app). CNPG never creates the owner, ' +
      'so the database would never be applied. Add \'temporal\' to the cluster\'s \'managedRoles\', or choose one of its roles.');
  });
});

describe('WaitForPostgresJob', () => {
  function build(timeout?: Duration) {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'ddb-cluster', namespace: 'ddb' });
    const dbs = ['temporal_visibility', 'forgejo'].map((n) => new CnpgDatabase(chart, n, { cluster, pgName: n, owner: 'app' }));
    const wait = new WaitForPostgresJob(chart, 'Wait', { cluster, databases: dbs, timeout });
    return { chart, wait, manifests: Testing.synth(chart) };
  }

  test('waits for Cluster Ready, then for status.applied of every database, via kubectl args (no shell)', () => {
    const { manifests, wait } = build();
    expect(wait.timeout.toSeconds()).toBe(900);
    const job = find(manifests, 'Job', 'wait-for-ddb-cluster');
    const pod = job.spec.template.spec;
    expect(pod.initContainers[0].args).toEqual([
      'wait', '--namespace=ddb', '--for=condition=Ready', '--timeout=900s', 'clusters.postgresql.cnpg.io/ddb-cluster',
    ]);
    expect(pod.containers[0].args).toEqual([
      'wait', '--namespace=ddb', '--for=jsonpath={.status.applied}=true', '--timeout=900s',
      'databases.postgresql.cnpg.io/forgejo', 'databases.postgresql.cnpg.io/temporal-visibility',
    ]);
    for (const c of [...pod.initContainers, ...pod.containers]) {
      expect(c.command).toBeUndefined();
      expect(c.image).toBe(IMAGES.kubectl);
      expect(c.terminationMessagePolicy).toBe('FallbackToLogsOnError');
      expect(c.resources).toEqual({ requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '64Mi' } });
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
      });
    }
    expect(job.spec.backoffLimit).toBe(1);
    expect(job.spec.activeDeadlineSeconds).toBe(960);
    expect(pod.serviceAccountName).toBe('wait-for-ddb-cluster');
    expect(pod.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
  });

  test('its Role only reads the cluster and databases in its namespace', () => {
    const { manifests } = build();
    const role = find(manifests, 'Role', 'wait-for-ddb-cluster');
    expect(role.metadata.namespace).toBe('ddb');
    expect(role.rules).toEqual([{ apiGroups: ['postgresql.cnpg.io'], resources: ['clusters', 'databases'], verbs: ['get', 'list', 'watch'] }]);
    const binding = find(manifests, 'RoleBinding', 'wait-for-ddb-cluster');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'wait-for-ddb-cluster', namespace: 'ddb' }]);
  });

  test('is ordered after the cluster and databases it waits for', () => {
    const { manifests } = build(Duration.minutes(5));
    const kinds = manifests.map((m) => m.kind);
    expect(kinds.indexOf('Job')).toBeGreaterThan(kinds.lastIndexOf('Database'));
    expect(find(manifests, 'Job', 'wait-for-ddb-cluster').spec.activeDeadlineSeconds).toBe(360);
  });

  test('without databases, the only container waits for the cluster', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd' });
    new WaitForPostgresJob(chart, 'Wait', { cluster });
    const pod = find(Testing.synth(chart), 'Job', 'wait-for-forgejo-db').spec.template.spec;
    expect(pod.initContainers).toBeUndefined();
    expect(pod.containers.map((c: any) => c.name)).toEqual(['cluster-ready']);
  });
});

import { Duration, Testing } from 'cdk8s';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { CnpgDatabase } from '../../../lib/constructs/cnpg/cnpg-database';
import { WaitForPostgresJob } from '../../../lib/constructs/cnpg/wait-for-postgres-job';
import { IMAGES } from '../../../lib/shared/pins';
import { find } from '../../util';

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

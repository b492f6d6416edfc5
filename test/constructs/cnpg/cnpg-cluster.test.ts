import { Testing } from 'cdk8s';
import { BarmanObjectStore } from '../../../lib/constructs/cnpg/barman-object-store';
import { CnpgCluster, CnpgClusterProps } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { IMAGES } from '../../../lib/shared/pins';
import { find } from '../../util';

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
    const store = new BarmanObjectStore(chart, 'Store', {
      name: 'ddb-backup', namespace: 'ddb', endpointUrl: 'https://s3.example.net', bucket: 'pg',
      accessKeyId: { name: 's3', key: 'id' }, secretAccessKey: { name: 's3', key: 'secret' },
    });
    const props: Required<CnpgClusterProps> = {
      name: 'ddb-cluster', namespace: 'ddb', instances: 3, initdbDatabase: 'app', initdbOwner: 'app', storageSize: '20Gi',
      storageClass: 'longhorn', controlPlaneFriendly: false, managedRoles: ['temporal', 'authentik'], imageName: 'example/pg:1',
      cpuRequest: '250m', memoryRequest: '1Gi', memoryLimit: '2Gi',
      walArchive: { objectStore: store, serverName: 'ddb-cluster-2', walArchiving: true },
      restoreFrom: { objectStore: store, serverName: 'ddb-cluster', targetTime: '2026-01-15T10:30:00Z', backupId: '20260115T030000' },
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
    expect(cluster.archiveServerName).toBe('ddb-cluster-2');
    expect(spec.bootstrap).toEqual({ recovery: {
      source: 'ddb-cluster', database: 'app', owner: 'app', recoveryTarget: { targetTime: '2026-01-15T10:30:00Z', backupID: '20260115T030000' },
    } });
  });

  test('throws for zero instances', () => {
    expect(() => new CnpgCluster(Testing.chart(), 'Db', { name: 'x', namespace: 'y', instances: 0 })).toThrow(
      'test/Db: \'instances\' must be an integer of at least 1, got 0.');
  });
});

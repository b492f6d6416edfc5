import { Testing } from 'cdk8s';
import { Chart } from 'cdk8s';
import { BarmanObjectStore, BarmanObjectStoreProps } from '../../../lib/constructs/cnpg/barman-object-store';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { CnpgScheduledBackup, CnpgScheduledBackupProps } from '../../../lib/constructs/cnpg/cnpg-scheduled-backup';
import { problemsOf } from '../../validation/util';
import { find } from '../../util';

function store(chart: Chart, overrides: Partial<BarmanObjectStoreProps> = {}): BarmanObjectStore {
  return new BarmanObjectStore(chart, overrides.name ?? 'Store', {
    name: 'forgejo-db-backup', namespace: 'cicd', endpointUrl: 'https://s3.example.net', bucket: 'homelab-pg',
    accessKeyId: { name: 'backup-s3', key: 'ACCESS_KEY_ID' }, secretAccessKey: { name: 'backup-s3', key: 'ACCESS_SECRET_KEY' },
    ...overrides,
  });
}

describe('BarmanObjectStore', () => {
  test('all props: the ObjectStore reads its credentials from Secrets and never names a server', () => {
    const chart = Testing.chart();
    const props: Required<BarmanObjectStoreProps> = {
      name: 'forgejo-db-backup', namespace: 'cicd', endpointUrl: 'https://s3.example.net', bucket: 'homelab-pg', bucketPath: 'cnpg/forgejo',
      accessKeyId: { name: 'backup-s3', key: 'ACCESS_KEY_ID' }, secretAccessKey: { name: 'backup-s3', key: 'ACCESS_SECRET_KEY' },
      region: { name: 'backup-s3', key: 'REGION' }, endpointCa: { name: 'backup-ca', key: 'ca.crt' }, retentionPolicy: '30d',
    };
    const s = new BarmanObjectStore(chart, 'Store', props);
    expect(s.destinationPath).toBe('s3://homelab-pg/cnpg/forgejo/');
    const json = find(Testing.synth(chart), 'ObjectStore', 'forgejo-db-backup');
    expect(json.apiVersion).toBe('barmancloud.cnpg.io/v1');
    expect(json.metadata).toEqual({ name: 'forgejo-db-backup', namespace: 'cicd' });
    expect(json.spec).toEqual({
      configuration: {
        destinationPath: 's3://homelab-pg/cnpg/forgejo/',
        endpointURL: 'https://s3.example.net',
        endpointCA: { name: 'backup-ca', key: 'ca.crt' },
        s3Credentials: {
          accessKeyId: { name: 'backup-s3', key: 'ACCESS_KEY_ID' },
          secretAccessKey: { name: 'backup-s3', key: 'ACCESS_SECRET_KEY' },
          region: { name: 'backup-s3', key: 'REGION' },
        },
        wal: { compression: 'gzip' },
      },
      retentionPolicy: '30d',
    });
  });

  test('defaults: the bucket root, no CA, no region, no retention', () => {
    const chart = Testing.chart();
    const s = store(chart);
    expect(s.destinationPath).toBe('s3://homelab-pg/');
    expect(s.retentionPolicy).toBeUndefined();
    const spec = find(Testing.synth(chart), 'ObjectStore', 'forgejo-db-backup').spec;
    expect(spec.retentionPolicy).toBeUndefined();
    expect(spec.configuration.endpointCA).toBeUndefined();
    expect(spec.configuration.s3Credentials.region).toBeUndefined();
  });

  test('throws for a retention policy the CRD refuses', () => {
    expect(() => store(Testing.chart(), { retentionPolicy: '30 days' })).toThrow('test/Store: \'retentionPolicy\' \'30 days\' is not a retention ' +
      'policy: write a positive whole number and a unit, \'d\' (days), \'w\' (weeks) or \'m\' (months), e.g. \'30d\' (the ObjectStore CRD\'s ' +
      'pattern ^[1-9][0-9]*[dwm]$).');
  });

  test('throws for credentials in the endpoint URL', () => {
    expect(() => store(Testing.chart(), { endpointUrl: 'https://AKIA:secret@s3.example.net' })).toThrow(/^test\/Store: 'endpointUrl' .*; reference the credentials/);
  });
});

describe('CnpgCluster with the Barman Cloud plugin', () => {
  test('walArchive: spec.plugins names the plugin, the ObjectStore and the server name; the ObjectStore is applied first', () => {
    // GIVEN
    const chart = Testing.chart();
    const s = store(chart);
    // WHEN
    const cluster = new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd', walArchive: { objectStore: s } });
    // THEN
    expect(cluster.archiveServerName).toBe('forgejo-db');
    const manifests = Testing.synth(chart);
    expect(find(manifests, 'Cluster', 'forgejo-db').spec.plugins).toEqual([{
      name: 'barman-cloud.cloudnative-pg.io',
      enabled: true,
      isWALArchiver: true,
      parameters: { barmanObjectName: 'forgejo-db-backup', serverName: 'forgejo-db' },
    }]);
    expect(manifests.map((m) => m.kind)).toEqual(['ObjectStore', 'Cluster']);
  });

  test('walArchiving: false keeps the plugin for base backups but not as the WAL archiver', () => {
    const chart = Testing.chart();
    new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd', walArchive: { objectStore: store(chart), walArchiving: false } });
    expect(find(Testing.synth(chart), 'Cluster', 'forgejo-db').spec.plugins[0].isWALArchiver).toBe(false);
  });

  test('restoreFrom: bootstrap.recovery reads an external cluster through the plugin, and archives under a new server name', () => {
    // GIVEN
    const chart = Testing.chart();
    const s = store(chart);
    // WHEN
    new CnpgCluster(chart, 'Db', {
      name: 'forgejo-db', namespace: 'cicd', initdbDatabase: 'forgejo', initdbOwner: 'forgejo',
      walArchive: { objectStore: s, serverName: 'forgejo-db-2' },
      restoreFrom: { objectStore: s, serverName: 'forgejo-db', targetTime: '2026-01-15T10:30:00+02:00' },
    });
    // THEN
    const spec = find(Testing.synth(chart), 'Cluster', 'forgejo-db').spec;
    expect(spec.bootstrap).toEqual({
      recovery: { source: 'forgejo-db', database: 'forgejo', owner: 'forgejo', recoveryTarget: { targetTime: '2026-01-15T10:30:00+02:00' } },
    });
    expect(spec.externalClusters).toEqual([{
      name: 'forgejo-db',
      plugin: { name: 'barman-cloud.cloudnative-pg.io', enabled: true, isWALArchiver: false, parameters: { barmanObjectName: 'forgejo-db-backup', serverName: 'forgejo-db' } },
    }]);
    expect(spec.plugins[0].parameters).toEqual({ barmanObjectName: 'forgejo-db-backup', serverName: 'forgejo-db-2' });
  });

  test('restoreFrom without a recovery target recovers to the end of the archive', () => {
    const chart = Testing.chart();
    new CnpgCluster(chart, 'Db', { name: 'ddb', namespace: 'cicd', restoreFrom: { objectStore: store(chart), serverName: 'ddb' } });
    const spec = find(Testing.synth(chart), 'Cluster', 'ddb').spec;
    expect(spec.bootstrap).toEqual({ recovery: { source: 'ddb', database: 'app', owner: 'app' } });
    expect(spec.plugins).toBeUndefined();
  });

  test('throws when the cluster archives under the server name it restores from', () => {
    const chart = Testing.chart();
    const s = store(chart);
    expect(() => new CnpgCluster(chart, 'Db', {
      name: 'forgejo-db', namespace: 'cicd', walArchive: { objectStore: s }, restoreFrom: { objectStore: s, serverName: 'forgejo-db' },
    })).toThrow('test/Db: the cluster restores from server name \'forgejo-db\' and archives under it too; the Barman Cloud plugin refuses to ' +
      'archive into a WAL archive that is not empty. Set \'walArchive.serverName\' to a new name.');
  });

  test('throws for a target time without a zone, and for a malformed backup ID', () => {
    const chart = Testing.chart();
    const s = store(chart);
    expect(() => new CnpgCluster(chart, 'A', { name: 'a', namespace: 'cicd', restoreFrom: { objectStore: s, serverName: 'a-1', targetTime: '2026-01-15 10:30:00' } }))
      .toThrow('test/A: \'restoreFrom.targetTime\' \'2026-01-15 10:30:00\' has no time zone, and PostgreSQL would read it as UTC: write the zone, ' +
        'e.g. \'2026-01-15T10:30:00Z\' or with an offset such as \'+02:00\'.');
    expect(() => new CnpgCluster(chart, 'B', { name: 'b', namespace: 'cicd', restoreFrom: { objectStore: s, serverName: 'b-1', backupId: 'latest' } }))
      .toThrow('test/B: \'restoreFrom.backupId\' \'latest\' is not a Barman backup ID; copy it from the Backup\'s status.backupId, e.g. \'20260115T030000\'.');
  });

  test('throws for an ObjectStore in another namespace', () => {
    const chart = Testing.chart();
    expect(() => new CnpgCluster(chart, 'Db', { name: 'ddb', namespace: 'ddb', walArchive: { objectStore: store(chart) } })).toThrow(
      'test/Db: ObjectStore \'forgejo-db-backup\' is in namespace \'cicd\', the cluster in \'ddb\'; the plugin looks the ObjectStore up in the ' +
      'cluster\'s namespace. Define it there.');
  });
});

describe('CnpgScheduledBackup', () => {
  test('all props: method plugin, the plugin named, owned by the schedule, after its cluster', () => {
    // GIVEN
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd', walArchive: { objectStore: store(chart) } });
    const props: Required<CnpgScheduledBackupProps> = { cluster, schedule: '0 30 2 * * SUN', name: 'forgejo-db-weekly' };
    // WHEN
    const backup = new CnpgScheduledBackup(chart, 'Backup', props);
    // THEN
    expect(backup.schedule).toBe('0 30 2 * * SUN');
    const manifests = Testing.synth(chart);
    const json = find(manifests, 'ScheduledBackup', 'forgejo-db-weekly');
    expect(json.apiVersion).toBe('postgresql.cnpg.io/v1');
    expect(json.metadata).toEqual({ name: 'forgejo-db-weekly', namespace: 'cicd' });
    expect(json.spec).toEqual({
      cluster: { name: 'forgejo-db' },
      schedule: '0 30 2 * * SUN',
      method: 'plugin',
      pluginConfiguration: { name: 'barman-cloud.cloudnative-pg.io' },
      backupOwnerReference: 'self',
    });
    expect(manifests.map((m) => m.kind)).toEqual(['ObjectStore', 'Cluster', 'ScheduledBackup']);
  });

  test('defaults: 03:00 every day, named after the cluster', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd', walArchive: { objectStore: store(chart) } });
    const backup = new CnpgScheduledBackup(chart, 'Backup', { cluster });
    expect([backup.name, backup.schedule]).toEqual(['forgejo-db-backup', '0 0 3 * * *']);
  });

  test('throws for a five-field CronJob schedule, naming the six-field one', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd', walArchive: { objectStore: store(chart) } });
    expect(() => new CnpgScheduledBackup(chart, 'Backup', { cluster, schedule: '0 3 * * *' })).toThrow('test/Backup: \'schedule\' \'0 3 * * *\' ' +
      'has 5 fields, like a Kubernetes CronJob; CNPG\'s ScheduledBackup schedule has 6, seconds first: write \'0 0 3 * * *\'.');
  });

  test('throws for a cluster that does not archive', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd' });
    expect(() => new CnpgScheduledBackup(chart, 'Backup', { cluster })).toThrow('test/Backup: cluster \'forgejo-db\' has no \'walArchive\', so the ' +
      'Barman Cloud plugin has no object store to back it up to. Give the cluster a walArchive.');
  });
});

test('every backup object passes the pinned CRD schemas (ObjectStore v0.14.0, CNPG 1.30 Cluster and ScheduledBackup)', () => {
  // GIVEN
  const chart = Testing.chart();
  const s = store(chart, { bucketPath: 'cnpg', retentionPolicy: '4w', endpointCa: { name: 'backup-ca', key: 'ca.crt' } });
  const cluster = new CnpgCluster(chart, 'Db', {
    name: 'forgejo-db', namespace: 'cicd', walArchive: { objectStore: s, serverName: 'forgejo-db-2' },
    restoreFrom: { objectStore: s, serverName: 'forgejo-db', targetTime: '2026-01-15T10:30:00Z', backupId: '20260115T030000' },
  });
  new CnpgScheduledBackup(chart, 'Backup', { cluster });
  // WHEN
  const manifests = Testing.synth(chart);
  // THEN
  expect(manifests.map((m) => m.kind)).toEqual(['ObjectStore', 'Cluster', 'ScheduledBackup']);
  expect(problemsOf({ 'backup.yaml': manifests })).toEqual([]);
  // ... and the validator does check them: a field the CRD does not have is reported.
  const bad = { ...manifests[0], spec: { ...manifests[0].spec, configuration: { ...manifests[0].spec.configuration, serverName: 'x', bucket: 'y' } } };
  expect(problemsOf({ 'backup.yaml': [bad] }).join('\n')).toMatch(/bucket/);
});

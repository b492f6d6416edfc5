import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig, PostgresClusterConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { nextServerName } from '../../lib/config/rules';
import { validateConfig } from '../../lib/config/validate-config';

const STORE = { endpointURL: 'https://s3.example.net', bucket: 'homelab-pg', credentials: { secretName: 'backup-s3' } };

/** The reference homelab with `forgejo-db` replaced by `cluster`. */
function withForgejoDb(cluster: Record<string, unknown>): HomelabConfig {
  return {
    ...REFERENCE_HOMELAB,
    postgresClusters: { ...REFERENCE_HOMELAB.postgresClusters, 'forgejo-db': { namespace: 'cicd', instances: 3, ...cluster } as PostgresClusterConfig },
  };
}

function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

const RESTORED = { restoreFrom: { serverName: 'forgejo-db', database: 'forgejo', owner: 'forgejo' } };

describe('postgresClusters.<name>.backup and restoreFrom', () => {
  test('defaults: WAL archiving, 03:00 daily, 30 days, the cluster name as server name, in-cluster targets refused', () => {
    const config = parseHomelabConfig(withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: STORE } }));
    const c = config.postgresClusters['forgejo-db'];
    expect(c.backup).toEqual({
      objectStore: { ...STORE, credentials: { secretName: 'backup-s3', accessKeyIdKey: 'ACCESS_KEY_ID', secretAccessKeyKey: 'ACCESS_SECRET_KEY' } },
      walArchiving: true, schedule: '0 0 3 * * *', retentionPolicy: '30d', acceptInClusterOnly: false,
      restoreDrill: { enabled: true, schedule: '0 5 * * 0', timeoutMinutes: 60 },
    });
    expect(c.backup?.serverName).toBeUndefined();
    expect([c.initdbDatabase, c.initdbOwner]).toEqual(['forgejo', 'forgejo']);
  });

  test('a restored cluster takes its application database and owner from restoreFrom', () => {
    const config = parseHomelabConfig(withForgejoDb({ backup: { objectStore: STORE, serverName: 'forgejo-db-2' }, ...RESTORED }));
    const c = config.postgresClusters['forgejo-db'];
    expect([c.initdbDatabase, c.initdbOwner]).toEqual(['forgejo', 'forgejo']);
  });

  test('fails when a cluster both initdb-s and restores, naming what to remove', () => {
    expect(problems(withForgejoDb({ initdbDatabase: 'forgejo', initdbOwner: 'forgejo', backup: { objectStore: STORE, serverName: 'forgejo-db-2' }, ...RESTORED })))
      .toEqual(['postgresClusters.forgejo-db.initdbDatabase: the cluster sets both initdbDatabase and initdbOwner (initdb: a new, empty cluster) and ' +
        'restoreFrom (recovery from a backup), and a cluster is bootstrapped only one way. To restore, remove initdbDatabase and initdbOwner ' +
        '(restoreFrom.database and restoreFrom.owner name the recovered database); to start empty, remove restoreFrom.']);
  });

  test('fails when the cluster would archive under the server name its restore reads (the default, its own name)', () => {
    expect(problems(withForgejoDb({ backup: { objectStore: STORE }, ...RESTORED }))).toEqual([
      'postgresClusters.forgejo-db.backup.serverName: the cluster archives under server name \'forgejo-db\' (the cluster name, by default), the one ' +
      'restoreFrom reads: the Barman Cloud plugin refuses to archive into a WAL archive that is not empty, so the restored cluster would never ' +
      'archive. Set backup.serverName to a new name, e.g. \'forgejo-db-2\'.',
    ]);
    expect(problems(withForgejoDb({ backup: { objectStore: STORE, serverName: 'forgejo-db-2' }, restoreFrom: { ...RESTORED.restoreFrom, serverName: 'forgejo-db-2' } })))
      .toEqual([expect.stringMatching(/^postgresClusters\.forgejo-db\.backup\.serverName: the cluster archives under server name 'forgejo-db-2', .* e\.g\. 'forgejo-db-3'\.$/)]);
    expect(nextServerName('forgejo-db')).toBe('forgejo-db-2');
  });

  test('fails for a restore without an object store to read', () => {
    expect(problems(withForgejoDb(RESTORED))).toEqual([
      'postgresClusters.forgejo-db.restoreFrom.objectStore: is required: the cluster has no backup.objectStore to read server \'forgejo-db\' from. ' +
      'Name the object store that holds it, or add a backup whose objectStore holds it.',
    ]);
  });

  test('fails for a malformed schedule, retention policy, target time and backup ID', () => {
    expect(problems(withForgejoDb({
      backup: { objectStore: STORE, schedule: '0 3 * * *', retentionPolicy: '30 days', serverName: 'forgejo-db-2' },
      restoreFrom: { ...RESTORED.restoreFrom, targetTime: 'yesterday', backupID: 'latest' },
    }))).toEqual([
      'postgresClusters.forgejo-db.backup.retentionPolicy: \'30 days\' is not a retention policy: write a positive whole number and a unit, \'d\' ' +
        '(days), \'w\' (weeks) or \'m\' (months), e.g. \'30d\' (the ObjectStore CRD\'s pattern ^[1-9][0-9]*[dwm]$).',
      'postgresClusters.forgejo-db.backup.schedule: \'0 3 * * *\' has 5 fields, like a Kubernetes CronJob; CNPG\'s ScheduledBackup schedule has 6, ' +
        'seconds first: write \'0 0 3 * * *\'.',
      'postgresClusters.forgejo-db.restoreFrom.backupID: \'latest\' is not a Barman backup ID; copy it from the Backup\'s status.backupId, e.g. \'20260115T030000\'.',
      'postgresClusters.forgejo-db.restoreFrom.targetTime: \'yesterday\' is not a point in time: write an RFC 3339 timestamp with its zone, e.g. ' +
        '\'2026-01-15T10:30:00Z\'.',
    ]);
    expect(problems(withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: STORE, schedule: '0 0 25 * * *' } }))).toEqual([
      'postgresClusters.forgejo-db.backup.schedule: \'0 0 25 * * *\': field 3 (hours) \'25\' is not valid; use \'*\', a number from 0 to 23, a range ' +
      '\'a-b\', a list \'a,b\' or a step \'*/n\'.',
    ]);
  });

  test('fails for credentials written as literal values', () => {
    const literal = { ...STORE, credentials: { secretName: 'backup-s3', accessKeyId: 'minio-user', secretAccessKey: 'changeme-please' } };
    expect(problems(withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: literal } }))).toEqual([
      'postgresClusters.forgejo-db.backup.objectStore.credentials.accessKeyId: a literal access key ID is not allowed: the config is committed and ' +
        'rendered into dist/. Put it in the Secret named by \'secretName\' and name its key in \'accessKeyIdKey\'.',
      'postgresClusters.forgejo-db.backup.objectStore.credentials.secretAccessKey: a literal secret access key is not allowed: the config is committed ' +
        'and rendered into dist/. Put it in the Secret named by \'secretName\' and name its key in \'secretAccessKeyKey\'.',
    ]);
  });

  test('fails, unless accepted, when the only backup target is inside the cluster it protects', () => {
    const inCluster = (endpointURL: string, acceptInClusterOnly?: boolean) =>
      problems(withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: { ...STORE, endpointURL }, acceptInClusterOnly } }));
    expect(inCluster('http://minio.minio.svc.cluster.local:9000')).toEqual([
      'postgresClusters.forgejo-db.backup.objectStore.endpointURL: the only backup target of cluster \'forgejo-db\' is inside the cluster it protects ' +
      '(\'minio.minio.svc.cluster.local\' is a Service name): losing the cluster loses its backups too. Point it at an off-site S3-compatible ' +
      'endpoint, or set backup.acceptInClusterOnly: true to keep it on purpose.',
    ]);
    expect(inCluster('http://minio:9000')).toEqual([expect.stringContaining('(\'minio\' is a single-label name, resolved through the Pod\'s search domains to a Service)')]);
    expect(inCluster('http://10.96.12.7:9000')).toEqual([expect.stringContaining('(10.96.12.7 is in the Talos default Service range (10.96.0.0/12))')]);
    expect(inCluster('http://192.168.1.20:9000')).toEqual([]);
    // accepted on purpose: for a cluster Argo CD delivers
    const ddb = REFERENCE_HOMELAB.postgresClusters['ddb-cluster'];
    expect(problems({ ...REFERENCE_HOMELAB, postgresClusters: { ...REFERENCE_HOMELAB.postgresClusters,
      'ddb-cluster': { ...ddb, backup: { objectStore: { ...STORE, endpointURL: 'http://minio.minio.svc:9000' }, acceptInClusterOnly: true } } } })).toEqual([]);
  });

  test('fails for a Phase-0 cluster whose backup or restore store is inside the cluster, even when accepted', () => {
    // GIVEN forgejo-db (deliveredBy: 'bootstrap', the default) with an in-cluster store, accepted
    const accepted = withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: { ...STORE, endpointURL: 'http://minio.minio.svc:9000' }, acceptInClusterOnly: true } });
    // THEN the Phase-0 rule refuses it, saying why and how to fix it
    expect(problems(accepted)).toEqual([
      'postgresClusters.forgejo-db.backup.objectStore.endpointURL: cluster \'forgejo-db\' is created in Phase 0 (deliveredBy: \'bootstrap\'), ' +
      'before Argo CD runs, so its object store cannot be inside the cluster (\'minio.minio.svc\' is a Service name): nothing there serves it ' +
      'when the runbook creates the Cluster, and on a rebuilt cluster it is empty; backup.acceptInClusterOnly does not change that. Point it at ' +
      'an S3-compatible endpoint outside the cluster (off-site).',
    ]);
    // a restore store inside the cluster, with an off-site backup store
    const restore = withForgejoDb({ backup: { objectStore: STORE, serverName: 'forgejo-db-2' },
      restoreFrom: { ...RESTORED.restoreFrom, objectStore: { ...STORE, endpointURL: 'http://10.43.0.9:9000' } } });
    expect(problems(restore)).toEqual([
      'postgresClusters.forgejo-db.restoreFrom.objectStore.endpointURL: cluster \'forgejo-db\' is created in Phase 0 (deliveredBy: \'bootstrap\'), ' +
      'before Argo CD runs, so its object store cannot be inside the cluster (10.43.0.9 is in the k3s default Service range (10.43.0.0/16)): ' +
      'nothing there serves it when the runbook creates the Cluster, and on a rebuilt cluster it is empty. Point it at an S3-compatible endpoint ' +
      'outside the cluster (off-site).',
    ]);
  });

  test('fails for an endpoint with a path and a bucket name S3 refuses', () => {
    expect(problems(withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: { ...STORE, endpointURL: 'https://s3.example.net/bucket', bucket: 'Homelab_PG' } } })))
      .toEqual([
        'postgresClusters.forgejo-db.backup.objectStore.bucket: \'Homelab_PG\' is not an S3 bucket name: 3 to 63 lower-case letters, digits, \'.\' and ' +
          '\'-\', e.g. \'homelab-backups\'.',
        'postgresClusters.forgejo-db.backup.objectStore.endpointURL: \'https://s3.example.net/bucket\' is not an S3 endpoint URL: write the scheme, ' +
          'host and port without a path, e.g. \'https://s3.example.net\' or \'http://192.168.1.20:9000\'.',
      ]);
  });
});

describe('postgresClusters.<name>.backup.restoreDrill', () => {
  test('can be turned off, rescheduled and given more time', () => {
    const drill = { enabled: false, schedule: '30 4 * * 6', timeoutMinutes: 120 };
    const config = parseHomelabConfig(withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: STORE, restoreDrill: drill } }));
    expect(config.postgresClusters['forgejo-db'].backup?.restoreDrill).toEqual(drill);
  });

  test('fails on a six-field schedule, naming the path and the five fields to write', () => {
    const config = withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: STORE, restoreDrill: { schedule: '0 0 5 * * 0' } } });
    expect(problems(config)).toContainEqual("postgresClusters.forgejo-db.backup.restoreDrill.schedule: '0 0 5 * * 0' has 6 fields, like CNPG's " +
      "ScheduledBackup (seconds first); a Kubernetes CronJob schedule has 5, minutes first: write '0 5 * * 0'.");
  });

  test('fails on a timeout under 5 minutes and on an unknown key', () => {
    const config = withForgejoDb({ initdbDatabase: 'forgejo', backup: { objectStore: STORE, restoreDrill: { timeoutMinutes: 1, schedul: 'x' } } });
    const found = problems(config);
    expect(found.some((p) => p.startsWith('postgresClusters.forgejo-db.backup.restoreDrill.timeoutMinutes:'))).toBe(true);
    expect(found.some((p) => p.startsWith('postgresClusters.forgejo-db.backup.restoreDrill') && p.includes('schedul'))).toBe(true);
  });
});

import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { validateConfig } from '../../lib/config/validate-config';

const OFFSITE = { endpointURL: 'https://s3.example.net', bucket: 'homelab-backups', credentials: { secretName: 'forgejo-backup-s3' } };
const IN_CLUSTER = { ...OFFSITE, endpointURL: 'http://minio.storage.svc:9000' };

/** The reference homelab with `forgejo.backup` and `forgejo.restoreFrom` replaced. */
function withForgejo(extra: Record<string, unknown>): HomelabConfig {
  const { backup: _backup, ...forgejo } = REFERENCE_HOMELAB.forgejo;
  return { ...REFERENCE_HOMELAB, forgejo: { ...forgejo, ...extra } as HomelabConfig['forgejo'] };
}

function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

describe('forgejo.backup and forgejo.restoreFrom', () => {
  test('the reference homelab backs Forgejo up off-site, and restores nothing', () => {
    const f = parseHomelabConfig(REFERENCE_HOMELAB).forgejo;
    expect(f.backup).toEqual({
      objectStore: {
        endpointURL: 'https://s3.example.net', bucket: 'homelab-backups',
        credentials: { secretName: 'homelab-backup-s3', accessKeyIdKey: 'ACCESS_KEY_ID', secretAccessKeyKey: 'ACCESS_SECRET_KEY' },
      },
      pathPrefix: 'forgejo', schedule: '0 2 * * *', retentionDays: 30, acceptInClusterOnly: false,
    });
    expect(f.restoreFrom).toBeUndefined();
    expect(problems(REFERENCE_HOMELAB)).toEqual([]);
  });

  test('restoreFrom defaults to the latest dump and reads the backup\'s store', () => {
    const config = withForgejo({ backup: { objectStore: OFFSITE }, restoreFrom: {} });
    expect(parseHomelabConfig(config).forgejo.restoreFrom).toEqual({ dump: 'latest', secretKeyFile: '~/.config/homelab/forgejo-secret-key' });
    expect(problems(config)).toEqual([]);
  });

  test('fails for a six-field (CNPG) schedule, naming the five-field one', () => {
    expect(problems(withForgejo({ backup: { objectStore: OFFSITE, schedule: '0 0 2 * * *' } }))).toEqual([
      'forgejo.backup.schedule: \'0 0 2 * * *\' has 6 fields, like CNPG\'s ScheduledBackup (seconds first); a Kubernetes CronJob schedule has 5, ' +
      'minutes first: write \'0 2 * * *\'.',
    ]);
  });

  test('fails for a schedule field out of range, and for a time zone in the schedule', () => {
    expect(problems(withForgejo({ backup: { objectStore: OFFSITE, schedule: '0 25 * * *' } }))).toEqual([
      'forgejo.backup.schedule: \'0 25 * * *\': field 2 (hours) \'25\' is not valid; use \'*\', a number from 0 to 23, a range \'a-b\', ' +
      'a list \'a,b\' or a step \'*/n\'.',
    ]);
    expect(problems(withForgejo({ backup: { objectStore: OFFSITE, schedule: 'CRON_TZ=Europe/Berlin 0 2 * * *' } }))).toEqual([
      'forgejo.backup.schedule: \'CRON_TZ=Europe/Berlin 0 2 * * *\' names a time zone: a Kubernetes CronJob schedule cannot; write the five ' +
      'fields alone, e.g. \'0 2 * * *\' (the cluster\'s time, UTC on Talos).',
    ]);
    expect(problems(withForgejo({ backup: { objectStore: OFFSITE, schedule: '@daily' } }))).toEqual([]);
  });

  test('fails for a retention of zero days', () => {
    expect(problems(withForgejo({ backup: { objectStore: OFFSITE, retentionDays: 0 } })))
      .toEqual(['forgejo.backup.retentionDays: must be an integer of at least 1, got 0.']);
  });

  test('fails for a dump name this project never writes', () => {
    expect(problems(withForgejo({ backup: { objectStore: OFFSITE }, restoreFrom: { dump: 'forgejo-dump-1700000000.zip' } }))).toEqual([
      'forgejo.restoreFrom.dump: \'forgejo-dump-1700000000.zip\' is not a Forgejo dump of this project: write \'latest\' or a file name such as ' +
      '\'forgejo-dump-20260115T020000Z.tar.gz\' (list them with `rclone lsf` or your S3 console).',
    ]);
  });

  test('fails for a backup target inside the cluster, unless kept on purpose', () => {
    expect(problems(withForgejo({ backup: { objectStore: IN_CLUSTER } }))).toEqual([
      'forgejo.backup.objectStore.endpointURL: the only backup target of Forgejo\'s repositories is inside the cluster it protects ' +
      '(\'minio.storage.svc\' is a Service name): losing the cluster loses its backups too. Point it at an off-site S3-compatible endpoint, or ' +
      'set forgejo.backup.acceptInClusterOnly: true to keep it on purpose.',
    ]);
    expect(problems(withForgejo({ backup: { objectStore: IN_CLUSTER, acceptInClusterOnly: true } }))).toEqual([]);
  });

  test('fails for a restore from inside the cluster even when the backup is kept there on purpose (Forgejo is Phase 0)', () => {
    expect(problems(withForgejo({ backup: { objectStore: IN_CLUSTER, acceptInClusterOnly: true }, restoreFrom: {} }))).toEqual([
      'forgejo.backup.objectStore.endpointURL: Forgejo restores from an object store inside the cluster (\'minio.storage.svc\' is a Service ' +
      'name), but it is restored in Phase 0, before any in-cluster object store can run, so the restore would wait forever. Point ' +
      'forgejo.restoreFrom.objectStore at the off-site endpoint that holds the dumps.',
    ]);
    expect(problems(withForgejo({ backup: { objectStore: IN_CLUSTER, acceptInClusterOnly: true }, restoreFrom: { objectStore: OFFSITE } })))
      .toEqual([]);
    expect(problems(withForgejo({ restoreFrom: { objectStore: { ...OFFSITE, endpointURL: 'http://10.43.0.12:9000' } } }))).toEqual([
      'forgejo.restoreFrom.objectStore.endpointURL: Forgejo restores from an object store inside the cluster (10.43.0.12 is in the k3s default ' +
      'Service range (10.43.0.0/16)), but it is restored in Phase 0, before any in-cluster object store can run, so the restore would wait ' +
      'forever. Point forgejo.restoreFrom.objectStore at the off-site endpoint that holds the dumps.',
    ]);
  });

  test('fails for a restore without an object store to read', () => {
    expect(problems(withForgejo({ restoreFrom: { dump: 'latest' } }))).toEqual([
      'forgejo.restoreFrom.objectStore: is required: Forgejo has no backup.objectStore to read its dumps from. Name the object store that ' +
      'holds them, or add forgejo.backup whose objectStore holds them.',
    ]);
  });

  test('fails for a literal key in the object store, pointing at the Secret', () => {
    expect(problems(withForgejo({ backup: { objectStore: { ...OFFSITE, credentials: { secretName: 'forgejo-backup-s3', secretAccessKey: 'hunter2' } } } })))
      .toEqual([expect.stringMatching(/^forgejo\.backup\.objectStore\.credentials\.secretAccessKey: a literal secret access key is not allowed/)]);
  });
});

import { REFERENCE_HOMELAB } from '../lib/config/defaults';
import { BackupObjectStoreConfig, HomelabConfig } from '../lib/config/homelab-config';

/**
 * The reference homelab with backups through the CNPG Barman Cloud plugin, and `forgejo-db` rebuilt from them. The
 * runbook installs the plugin in Phase 0 (its own TLS Secrets, no cert-manager), after the CNPG operator and before
 * `forgejo-db`, whose credentials it applies from `~/.config/homelab/forgejo-db-backup-s3.env`; the recovery then runs
 * when the runbook creates the Cluster. The runbook's restore procedure (`--restore`) is not written yet.
 * Synthesized by the tests (test/synth/backup-example.test.ts), never into the committed dist/.
 *
 * - Every cluster archives WAL and takes a base backup at 03:00 into an off-site S3-compatible store, keeping 30 days.
 * - `forgejo-db` is restored from the archive its lost predecessor wrote under server name `forgejo-db`, to a point
 *   in time, and archives under the next name of its lineage, `forgejo-db-2`: the plugin refuses to archive into a
 *   WAL archive that is not empty.
 * - Forgejo's empty data volume is filled from the latest `forgejo dump` in the reference homelab's off-site folder
 *   before Forgejo starts (`forgejo.restoreFrom`); Forgejo keeps dumping there nightly (`forgejo.backup`).
 *
 *   npm run synth -- --config examples/backup.config.ts --out /tmp/backup-dist
 */
const offsite = (secretName: string): BackupObjectStoreConfig => ({
  endpointURL: 'https://s3.eu-central-1.example.net',
  bucket: 'homelab-pg-backups',
  path: 'cnpg',
  credentials: { secretName },
});

const config: HomelabConfig = {
  ...REFERENCE_HOMELAB,
  postgresClusters: {
    'forgejo-db': {
      namespace: 'cicd',
      instances: 3,
      storageSize: '10Gi',
      // No initdbDatabase or initdbOwner: a restored cluster gets its database and owner from the backup.
      backup: { objectStore: offsite('forgejo-db-backup-s3'), serverName: 'forgejo-db-2' },
      restoreFrom: { serverName: 'forgejo-db', targetTime: '2026-11-30T23:00:00Z', database: 'forgejo', owner: 'forgejo' },
    },
    'ddb-cluster': {
      ...REFERENCE_HOMELAB.postgresClusters['ddb-cluster'],
      backup: { objectStore: offsite('ddb-cluster-backup-s3'), schedule: '0 30 3 * * *', retentionPolicy: '4w' },
    },
  },
  forgejo: { ...REFERENCE_HOMELAB.forgejo, restoreFrom: { dump: 'latest' } },
};

export default config;

import { Duration } from 'cdk8s';
import { ResolvedHomelabConfig } from '../config/homelab-config';
import { BootstrapStep } from '../constructs/bootstrap/bootstrap-step';
import { DumpStore } from '../constructs/forgejo/dump-store';
import { ForgejoBackupCronJob } from '../constructs/forgejo/forgejo-backup-cron-job';
import { ForgejoRestore } from '../constructs/forgejo/forgejo-restore';
import { ForgejoServer } from '../constructs/forgejo/forgejo-server';
import { installObjectStoreCredentials } from './object-store-credentials';

type ForgejoConfig = ResolvedHomelabConfig['forgejo'];
type ObjectStoreConfig = NonNullable<ForgejoConfig['backup']>['objectStore'];

/** The folder `pathPrefix` of `store`, as the constructs take it. */
function dumpStore(store: ObjectStoreConfig, pathPrefix: string): DumpStore {
  const secret = store.credentials.secretName;
  return {
    endpointUrl: store.endpointURL,
    bucket: store.bucket,
    folder: store.path === undefined ? pathPrefix : `${store.path}/${pathPrefix}`,
    accessKeyId: { name: secret, key: store.credentials.accessKeyIdKey },
    secretAccessKey: { name: secret, key: store.credentials.secretAccessKeyKey },
    region: store.credentials.regionKey === undefined ? undefined : { name: secret, key: store.credentials.regionKey },
    endpointCa: store.caSecret,
  };
}

/**
 * How long the runbook waits for Forgejo's rollout when its pod first restores a dump: the restore runs as an init
 * container, so the rollout includes the download and unpacking of every repository.
 */
export const FORGEJO_RESTORE_ROLLOUT_TIMEOUT = Duration.minutes(60);

/**
 * Defines `forgejo.backup` (a `ForgejoBackupCronJob` with id `Backup`) and `forgejo.restoreFrom` (a `ForgejoRestore`
 * with id `Restore`) in the Forgejo step, each with its credential precondition (one per Secret). The config rules
 * make sure a restore has a store: its own, or the backup's.
 */
export function defineForgejoBackup(step: BootstrapStep, forgejo: ForgejoServer, config: ForgejoConfig, databaseStep: BootstrapStep):
{ backup?: ForgejoBackupCronJob; restore?: ForgejoRestore } {
  const b = config.backup;
  const backup = b === undefined ? undefined : new ForgejoBackupCronJob(step, 'Backup', {
    forgejo,
    store: dumpStore(b.objectStore, b.pathPrefix),
    schedule: b.schedule,
    retentionDays: b.retentionDays,
  });
  // The constructs' own requirements are `secret-exists` checks of their credentials; in Phase 0 the runbook installs
  // them from the operator's env files instead, like a Phase-0 cluster's (so the components are not added).
  // Forgejo's step always runs after its database's, which may already install the same credential (one store for both).
  installObjectStoreCredentials(step, forgejo.namespace, [b?.objectStore, config.restoreFrom?.objectStore], 'Forgejo\'s dumps', [databaseStep]);
  const r = config.restoreFrom;
  const store = r?.objectStore ?? b?.objectStore;
  const restore = r === undefined || store === undefined ? undefined : new ForgejoRestore(step, 'Restore', {
    forgejo,
    store: dumpStore(store, r.pathPrefix ?? b?.pathPrefix ?? 'forgejo'),
    dump: r.dump,
  });
  return { backup, restore };
}

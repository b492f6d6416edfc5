import { Construct } from 'constructs';
import type { ResolvedBackupObjectStoreConfig, ResolvedPostgresClusterConfig } from '../config/homelab-config';
import { BarmanObjectStore } from '../constructs/cnpg/barman-object-store';
import { CnpgCluster, CnpgClusterProps } from '../constructs/cnpg/cnpg-cluster';
import { CnpgScheduledBackup } from '../constructs/cnpg/cnpg-scheduled-backup';

/** The props of the `Cluster` that `postgresClusters.<name>` of the homelab config declares (without its backups). */
export function cnpgClusterProps(name: string, c: ResolvedPostgresClusterConfig): CnpgClusterProps {
  return {
    name,
    namespace: c.namespace,
    instances: c.instances,
    initdbDatabase: c.initdbDatabase,
    initdbOwner: c.initdbOwner,
    storageSize: c.storageSize,
    storageClass: c.storageClass,
    controlPlaneFriendly: c.controlPlaneFriendly,
    managedRoles: c.managedRoles,
    cpuRequest: c.cpuRequest,
    memoryRequest: c.memoryRequest,
    memoryLimit: c.memoryLimit,
  };
}

/** A cluster of the config with the objects of its backups and restore. */
export interface PostgresClusterObjects {
  readonly cluster: CnpgCluster;
  /** The ObjectStores the cluster archives to or restores from (one when both are the same store). */
  readonly objectStores: readonly BarmanObjectStore[];
  readonly scheduledBackup?: CnpgScheduledBackup;
}

/** Whether two object stores of the config are the same place with the same credentials. */
function sameStore(a: ResolvedBackupObjectStoreConfig, b: ResolvedBackupObjectStoreConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Defines `postgresClusters.<name>` in `scope` with id `id`: the Cluster and, for `backup` and `restoreFrom`, the
 * ObjectStores (`<cluster>-backup`, and `<cluster>-restore` when the restore reads another store) and the
 * ScheduledBackup. Ids of the extra objects are `<id>-BackupStore`, `<id>-RestoreStore`, `<id>-ScheduledBackup`.
 */
export function definePostgresCluster(scope: Construct, id: string, name: string, c: ResolvedPostgresClusterConfig): PostgresClusterObjects {
  const store = (storeId: string, storeName: string, s: ResolvedBackupObjectStoreConfig, retentionPolicy?: string) =>
    new BarmanObjectStore(scope, storeId, {
      name: storeName,
      namespace: c.namespace,
      endpointUrl: s.endpointURL,
      bucket: s.bucket,
      bucketPath: s.path,
      accessKeyId: { name: s.credentials.secretName, key: s.credentials.accessKeyIdKey },
      secretAccessKey: { name: s.credentials.secretName, key: s.credentials.secretAccessKeyKey },
      region: s.credentials.regionKey === undefined ? undefined : { name: s.credentials.secretName, key: s.credentials.regionKey },
      endpointCa: s.caSecret,
      retentionPolicy,
    });
  const backup = c.backup;
  const backupStore = backup ? store(`${id}-BackupStore`, `${name}-backup`, backup.objectStore, backup.retentionPolicy) : undefined;
  const restore = c.restoreFrom;
  // The config rules make sure a restore has a store: its own, or the backup's.
  const restoreConfig = restore?.objectStore ?? backup?.objectStore;
  const restoreStore = restore && restoreConfig
    ? (backupStore && backup && sameStore(restoreConfig, backup.objectStore) ? backupStore : store(`${id}-RestoreStore`, `${name}-restore`, restoreConfig))
    : undefined;
  const cluster = new CnpgCluster(scope, id, {
    ...cnpgClusterProps(name, c),
    walArchive: backup && backupStore ? { objectStore: backupStore, serverName: backup.serverName, walArchiving: backup.walArchiving } : undefined,
    restoreFrom: restore && restoreStore ? {
      objectStore: restoreStore, serverName: restore.serverName, targetTime: restore.targetTime, backupId: restore.backupID,
    } : undefined,
  });
  const scheduledBackup = backup ? new CnpgScheduledBackup(scope, `${id}-ScheduledBackup`, { cluster, schedule: backup.schedule }) : undefined;
  const objectStores = [...new Set([backupStore, restoreStore])].filter((s): s is BarmanObjectStore => s !== undefined);
  return { cluster, objectStores, scheduledBackup };
}

import { Construct } from 'constructs';
import {
  ScheduledBackup, ScheduledBackupSpecBackupOwnerReference, ScheduledBackupSpecMethod,
} from '../../../imports/cnpg-scheduledbackup-postgresql.cnpg.io';
import { BARMAN_CLOUD_PLUGIN, cnpgScheduleProblem } from '../../shared/backup';
import { CnpgCluster } from './cnpg-cluster';

/** Properties for `CnpgScheduledBackup`. */
export interface CnpgScheduledBackupProps {
  /** The cluster to back up; it must archive through the Barman Cloud plugin (`walArchive`). */
  readonly cluster: CnpgCluster;
  /**
   * When to take a base backup: robfig/cron with seconds, six fields (`0 0 3 * * *` is 03:00 every day).
   * @default '0 0 3 * * *'
   */
  readonly schedule?: string;
  /**
   * Name of the `ScheduledBackup`.
   * @default - `<cluster>-backup`
   */
  readonly name?: string;
}

/**
 * A CNPG `ScheduledBackup` that takes base backups through the Barman Cloud plugin (`method: plugin`), into the
 * `ObjectStore` the cluster archives to. Each Backup it creates is owned by it (`backupOwnerReference: self`), so
 * deleting the schedule removes the Backup objects, never the backups in the object store.
 *
 * @see https://github.com/cloudnative-pg/plugin-barman-cloud/blob/v0.14.0/web/docs/migration.md
 * @see https://cloudnative-pg.io/documentation/1.30/backup/#scheduled-backups
 */
export class CnpgScheduledBackup extends Construct {
  public readonly name: string;
  public readonly namespace: string;
  public readonly schedule: string;
  public readonly cluster: CnpgCluster;
  /** The `ScheduledBackup` object. */
  public readonly resource: ScheduledBackup;

  constructor(scope: Construct, id: string, props: CnpgScheduledBackupProps) {
    super(scope, id);
    this.cluster = props.cluster;
    this.name = props.name ?? `${props.cluster.name}-backup`;
    this.namespace = props.cluster.namespace;
    this.schedule = props.schedule ?? '0 0 3 * * *';
    const problem = cnpgScheduleProblem(this.schedule);
    if (problem !== undefined) throw new Error(`${this.node.path}: 'schedule' ${problem}`);
    if (props.cluster.walArchive === undefined) {
      throw new Error(`${this.node.path}: cluster '${props.cluster.name}' has no 'walArchive', so the Barman Cloud plugin has no object ` +
        'store to back it up to. Give the cluster a walArchive.');
    }

    this.resource = new ScheduledBackup(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace },
      spec: {
        cluster: { name: props.cluster.name },
        schedule: this.schedule,
        method: ScheduledBackupSpecMethod.PLUGIN,
        pluginConfiguration: { name: BARMAN_CLOUD_PLUGIN },
        backupOwnerReference: ScheduledBackupSpecBackupOwnerReference.SELF,
      },
    });
    // A schedule of a Cluster that does not exist yet only fails its first backups.
    this.node.addDependency(props.cluster);
  }
}

import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { CnpgCluster } from '../cnpg/cnpg-cluster';
import { CnpgDatabase } from '../cnpg/cnpg-database';
import { CnpgScheduledBackup } from '../cnpg/cnpg-scheduled-backup';
import { BarmanObjectStore } from '../cnpg/barman-object-store';
import { ARGOCD_DIST } from '../../shared/dist-layout';
import { HomelabApplication } from './homelab-application';
import { HomelabProject } from './homelab-project';
import { HomelabRepo } from './homelab-repo';
import { ManagedNamespaceMetadata } from './sync-policy';
import { SYNC_WAVE_ANNOTATION, SYNC_WAVES, SyncWave } from '../../shared/sync-waves';

/** The per-resource annotation of Argo CD sync options (several are joined with `,`). */
export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';

/**
 * The sync options every delivered CNPG `Cluster` and `Database` carries: Argo CD never prunes it (removing it from
 * the config leaves it running, and the Application OutOfSync) and never deletes it when the Application itself is
 * deleted. A pruned `Cluster` takes its PVCs, and so its data, with it.
 *
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/docs/user-guide/sync-options.md ("No Prune Resources", "No Resource Deletion")
 */
export const KEEP_DATA_SYNC_OPTIONS = 'Prune=false,Delete=false';

/** Properties for `DataSchemas`. */
export interface DataSchemasProps {
  readonly project: HomelabProject;
  readonly repo: HomelabRepo;
  /**
   * CNPG Clusters this Application delivers (`deliveredBy: 'argocd'`).
   * @default []
   */
  readonly clusters?: readonly CnpgCluster[];
  /** CNPG Databases this Application delivers (`deliveredBy: 'argocd'`); at least one object overall. */
  readonly databases: readonly CnpgDatabase[];
  /**
   * Scheduled backups of `clusters`; the ObjectStores the clusters read and write are delivered with them.
   * @default []
   */
  readonly scheduledBackups?: readonly CnpgScheduledBackup[];
  /**
   * Name of the Application.
   * @default 'data-schemas'
   */
  readonly name?: string;
  /**
   * Sync wave; later waves are gated by the Databases' health (`status.applied`).
   * @default SYNC_WAVES.DATA
   */
  readonly syncWave?: SyncWave;
  /**
   * Let Argo CD create the destination namespace (when no Phase-0 step declares it).
   * @default false
   */
  readonly createNamespace?: boolean;
  /**
   * Metadata of the namespace Argo CD creates; only with `createNamespace`.
   * @default - none
   */
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
  /**
   * Applications that must be healthy first (the one delivering the role Secrets).
   * @default []
   */
  readonly dependsOn?: readonly HomelabApplication[];
}

/**
 * The `data-schemas` Application: the CNPG `Database` CRs (and the `Cluster`s delivered by Argo CD) of the
 * shared clusters, generated with `CnpgCluster` and `CnpgDatabase` into `dist/data-schemas/<cluster>.yaml`.
 * Within the Application a delivered Cluster syncs before its Databases (resource waves 0 and 1), because
 * CNPG rejects a Database whose Cluster does not exist. Applications in later waves are gated by the
 * Database health check the Phase-0 Argo CD install configures. Every delivered Cluster and Database carries
 * `KEEP_DATA_SYNC_OPTIONS`, so neither a prune nor the deletion of the Application removes data: the Application
 * prunes automatically, and a cluster removed from the config would otherwise be deleted with its volumes.
 *
 * @see https://cloudnative-pg.io/documentation/1.30/declarative_database_management/
 */
export class DataSchemas extends HomelabApplication {
  public readonly clusters: readonly CnpgCluster[];
  public readonly databases: readonly CnpgDatabase[];
  public readonly scheduledBackups: readonly CnpgScheduledBackup[];
  /** The ObjectStores of `clusters` (archive and restore), by cluster, then name. */
  public readonly objectStores: readonly BarmanObjectStore[];

  constructor(scope: Construct, id: string, props: DataSchemasProps) {
    const clusters = [...(props.clusters ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const databases = [...props.databases].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const name = props.name ?? 'data-schemas';
    if (clusters.length + databases.length === 0) {
      throw new Error(`application '${name}': has nothing to deliver; pass at least one of 'clusters' or 'databases', or drop the Application.`);
    }
    const namespaces = [...new Set([...clusters, ...databases].map((o) => o.namespace))].sort();
    super(scope, id, {
      name,
      project: props.project,
      repo: props.repo,
      sources: [{ kind: 'git-path', path: props.repo.distFile(ARGOCD_DIST.dataSchemas) }],
      namespace: namespaces[0],
      additionalNamespaces: namespaces.slice(1),
      syncWave: props.syncWave ?? SYNC_WAVES.DATA,
      syncOptions: props.createNamespace ? ['CreateNamespace'] : [],
      managedNamespaceMetadata: props.managedNamespaceMetadata,
      dependsOn: props.dependsOn,
    });
    this.clusters = clusters;
    this.databases = databases;
    this.scheduledBackups = props.scheduledBackups ?? [];
    for (const b of this.scheduledBackups) {
      if (!clusters.includes(b.cluster)) {
        throw new Error(`application '${name}': ScheduledBackup '${b.name}' backs up cluster '${b.cluster.name}', which this Application does not ` +
          'deliver; pass the cluster in \'clusters\' or deliver the schedule with it.');
      }
    }
    this.objectStores = [...new Set(clusters.flatMap((c) => [c.walArchive?.objectStore, c.restoreFrom?.objectStore]))]
      .filter((s): s is BarmanObjectStore => s !== undefined);
    // The plugin reads the ObjectStore when it reconciles the Cluster; a schedule only needs its Cluster to exist.
    for (const s of this.objectStores) s.resource.metadata.addAnnotation(SYNC_WAVE_ANNOTATION, '0');
    for (const b of this.scheduledBackups) b.resource.metadata.addAnnotation(SYNC_WAVE_ANNOTATION, '1');

    for (const cluster of clusters) cluster.resource.metadata.addAnnotation(SYNC_WAVE_ANNOTATION, '0');
    for (const db of databases) {
      if (clusters.includes(db.cluster)) db.resource.metadata.addAnnotation(SYNC_WAVE_ANNOTATION, '1');
    }
    for (const o of [...clusters, ...databases]) o.resource.metadata.addAnnotation(SYNC_OPTIONS_ANNOTATION, KEEP_DATA_SYNC_OPTIONS);
  }

  /** The file of each object this Application delivers: one per cluster, `data-schemas/<cluster>.yaml`. */
  public fileOfObjects(): [ApiObject, string][] {
    const storeCluster = (s: BarmanObjectStore) => this.clusters.find((c) => c.walArchive?.objectStore === s || c.restoreFrom?.objectStore === s)!;
    return [
      ...this.objectStores.map((s): [ApiObject, string] => [s.resource, `${ARGOCD_DIST.dataSchemas}/${storeCluster(s).name}.yaml`]),
      ...this.clusters.map((c): [ApiObject, string] => [c.resource, `${ARGOCD_DIST.dataSchemas}/${c.name}.yaml`]),
      ...this.scheduledBackups.map((b): [ApiObject, string] => [b.resource, `${ARGOCD_DIST.dataSchemas}/${b.cluster.name}.yaml`]),
      ...this.databases.map((d): [ApiObject, string] => [d.resource, `${ARGOCD_DIST.dataSchemas}/${d.cluster.name}.yaml`]),
    ];
  }
}

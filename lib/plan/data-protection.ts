import { ResolvedBackupObjectStoreConfig, ResolvedHomelabConfig } from '../config/homelab-config';
import { BootstrapPlan } from '../homelab/bootstrap-plan';
import { ArgoCdChart } from '../homelab/argocd-chart';
import { placeSteps } from '../output/render-steps';

/**
 * What the homelab backs up, where to, how much a restore can lose, and what a restore needs that is not in the
 * cluster: the data-protection part of the plan, derived from the config and the synthesized program, so the
 * disaster-recovery facts a reviewer reads in `npm run plan` and `dist/README.md` are the ones that are deployed.
 */

/**
 * Why a restore never overwrites a cluster that has data: CNPG bootstraps (initdb or recovery) only a Cluster with no
 * instance yet, and refuses to bootstrap one that was ever initialized (cloudnative-pg v1.30.0
 * `internal/controller/cluster_controller.go`, `createPrimaryInstance` only when `Status.Instances == 0`;
 * `internal/controller/cluster_create.go`, `IsInitialized()` → phase Unrecoverable, never a new bootstrap).
 */
export const RESTORE_ONLY_WHEN_CREATED = 'A restore happens only when a Cluster is created: CNPG bootstraps a Cluster once, ' +
  'so re-running the runbook or re-syncing never overwrites a cluster that already has data.';

/**
 * CNPG sets PostgreSQL's `archive_timeout` to 5 minutes (cloudnative-pg v1.30.0 `pkg/postgres/configuration.go`, the
 * fixed parameters; `docs/src/wal_archiving.md`): a WAL segment is switched and archived at least that often while
 * anything is written, so that is the data a restore from an archiving cluster loses at most, plus the upload time.
 */
export const CNPG_ARCHIVE_TIMEOUT_MINUTES = 5;

/** The backups of one CNPG cluster. */
export interface PlannedClusterBackup {
  /** The archive's address: `s3://<bucket>/<path>/<serverName>/`. */
  readonly archive: string;
  readonly endpoint: string;
  /** The folder the cluster archives under now (its server name). */
  readonly serverName: string;
  readonly walArchiving: boolean;
  /** CNPG's six-field schedule of base backups, seconds first. */
  readonly schedule: string;
  readonly retentionPolicy: string;
  /** What a restore loses at most, in words. */
  readonly rpo: string;
  /** The Secret holding the object store's credentials: `<namespace>/<name>`. */
  readonly credentials: string;
  /** Whether the target is inside the cluster it protects, kept on purpose (`acceptInClusterOnly`). */
  readonly inClusterOnly: boolean;
}

/** Where a cluster is recovered from when it is created. */
export interface PlannedClusterRestore {
  /** The archive read: `s3://<bucket>/<path>/<serverName>/`. */
  readonly archive: string;
  readonly serverName: string;
  /** How far the WAL is replayed, in words. */
  readonly target: string;
}

/** The data protection of one CNPG cluster. */
export interface PlannedClusterProtection {
  readonly cluster: string;
  readonly namespace: string;
  /** What creates the Cluster: a Phase-0 step (`NN-<step>`) or an Argo CD Application and its wave. */
  readonly deliveredBy: string;
  readonly backup?: PlannedClusterBackup;
  readonly restore?: PlannedClusterRestore;
}

/** A key or credential nothing can be restored without, kept off the cluster. */
export interface PlannedOffClusterKey {
  /** What it is, e.g. `Secret argocd/sops-age (key keys.txt)`. */
  readonly what: string;
  /** The local file the runbook reads it from, and the variable that overrides it. */
  readonly where: string;
}

/** The data-protection part of the plan. */
export interface PlannedDataProtection {
  /** Every CNPG cluster of the config, by name. */
  readonly clusters: readonly PlannedClusterProtection[];
  /** Clusters without backups: a rebuild loses their data. */
  readonly unprotected: readonly string[];
  /** What the runbook reads from the operator's machine: it must be kept off the cluster, and never in git. */
  readonly offClusterKeys: readonly PlannedOffClusterKey[];
}

/** The data-protection plan of a synthesized homelab. Pure: reads only its input, sorted by name. */
export function planDataProtection(config: ResolvedHomelabConfig, bootstrap: BootstrapPlan, argocd: ArgoCdChart): PlannedDataProtection {
  const placed = placeSteps(bootstrap.steps);
  const fileOf = (stepName: string) => placed.find((p) => p.step.stepName === stepName)?.fileName ?? stepName;
  const clusters = Object.keys(config.postgresClusters).sort().map((name): PlannedClusterProtection => {
    const c = config.postgresClusters[name];
    const step = bootstrap.postgres.get(name)?.step;
    const deliveredBy = step
      ? `Phase 0, step ${fileOf(step.stepName)}`
      : argocd.dataSchemas ? `Argo CD, Application ${argocd.dataSchemas.name} (wave ${argocd.dataSchemas.syncWave})` : 'Argo CD';
    const backup = c.backup;
    const restore = c.restoreFrom;
    const restoreStore = restore?.objectStore ?? backup?.objectStore;
    return {
      cluster: name,
      namespace: c.namespace,
      deliveredBy,
      ...(backup ? {
        backup: {
          archive: archiveUrl(backup.objectStore, backup.serverName ?? name),
          endpoint: backup.objectStore.endpointURL,
          serverName: backup.serverName ?? name,
          walArchiving: backup.walArchiving,
          schedule: backup.schedule,
          retentionPolicy: backup.retentionPolicy,
          rpo: backup.walArchiving
            ? `about ${CNPG_ARCHIVE_TIMEOUT_MINUTES} minutes (WAL is archived at least every ${CNPG_ARCHIVE_TIMEOUT_MINUTES} minutes ` +
              'while anything is written), plus the upload'
            : `everything since the last base backup (schedule '${backup.schedule}'): WAL is not archived`,
          credentials: `${c.namespace}/${backup.objectStore.credentials.secretName}`,
          inClusterOnly: backup.acceptInClusterOnly,
        },
      } : {}),
      ...(restore && restoreStore ? {
        restore: {
          archive: archiveUrl(restoreStore, restore.serverName),
          serverName: restore.serverName,
          target: restore.targetTime !== undefined
            ? `to ${restore.targetTime}${restore.backupID !== undefined ? `, from base backup ${restore.backupID}` : ''}`
            : restore.backupID !== undefined
              ? `from base backup ${restore.backupID} to the end of the archived WAL`
              : 'to the end of the archived WAL, from the latest base backup',
        },
      } : {}),
    };
  });
  const offClusterKeys = new Map<string, PlannedOffClusterKey>();
  for (const step of bootstrap.steps) {
    for (const pre of step.preconditions) {
      // Every precondition that reads a local file names it in `defaultPath` and its override in `variable`.
      const p = pre as { readonly kind: string; readonly defaultPath?: string; readonly variable?: string;
        readonly namespace?: string; readonly name?: string };
      if (p.defaultPath === undefined) continue;
      const what = p.namespace !== undefined && p.name !== undefined ? `Secret ${p.namespace}/${p.name}` : `step ${step.stepName}: ${step.summary}`;
      offClusterKeys.set(p.defaultPath, {
        what,
        where: `${p.defaultPath}${p.variable !== undefined ? ` (or $${p.variable})` : ''}`,
      });
    }
  }
  return {
    clusters,
    unprotected: clusters.filter((c) => c.backup === undefined).map((c) => c.cluster),
    offClusterKeys: [...offClusterKeys.values()].sort((a, b) => (a.where < b.where ? -1 : a.where > b.where ? 1 : 0)),
  };
}

/** `s3://<bucket>/<path>/<serverName>/`: where the plugin writes a server's base backups and WAL. */
function archiveUrl(store: ResolvedBackupObjectStoreConfig, serverName: string): string {
  return `s3://${[store.bucket, store.path, serverName].filter((s) => s !== undefined).join('/')}/`;
}

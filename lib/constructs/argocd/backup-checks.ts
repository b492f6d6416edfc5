import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { CnpgBackupAlerts } from '../cnpg/cnpg-backup-alerts';
import { CnpgRestoreDrill } from '../cnpg/cnpg-restore-drill';
import { ARGOCD_DIST } from '../../shared/dist-layout';
import { FIRST_SYNC_WAVE, LAST_SYNC_WAVE, SyncWave } from '../../shared/sync-waves';
import { HomelabApplication } from './homelab-application';
import { HomelabProject } from './homelab-project';
import { HomelabRepo } from './homelab-repo';
import { ManagedNamespaceMetadata } from './sync-policy';

/** Properties for `BackupChecks`. */
export interface BackupChecksProps {
  readonly project: HomelabProject;
  readonly repo: HomelabRepo;
  /**
   * PodMonitors and backup alerts, one per cluster with backups.
   * @default []
   */
  readonly alerts?: readonly CnpgBackupAlerts[];
  /**
   * Restore drills, one per cluster whose drill is on; all in `namespace`.
   * @default []
   */
  readonly drills?: readonly CnpgRestoreDrill[];
  /** The drill namespace: the Application's destination, which it creates. */
  readonly namespace: string;
  /**
   * Metadata of the drill namespace Argo CD creates.
   * @default - none
   */
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
  /**
   * Applications that must be healthy first: the one that installs the PrometheusRule and PodMonitor CRDs (and the
   * Prometheus Operator), and the one that delivers the object-store Secret of the drill namespace. The Application's
   * wave is the wave after the latest of them.
   */
  readonly dependsOn: readonly HomelabApplication[];
  /**
   * Name of the Application.
   * @default 'backup-checks'
   */
  readonly name?: string;
}

/** The wave after every one of `apps`: where an Application that depends on them all goes. */
export function waveAfter(name: string, apps: readonly HomelabApplication[]): SyncWave {
  const wave = Math.max(FIRST_SYNC_WAVE - 1, ...apps.map((a) => a.syncWave)) + 1;
  if (wave > LAST_SYNC_WAVE) {
    const last = apps.find((a) => a.syncWave === LAST_SYNC_WAVE)!;
    throw new Error(`application '${name}' depends on '${last.name}' in the last wave (${LAST_SYNC_WAVE}), so no wave is left for it; ` +
      `lower the syncWave of '${last.name}'.`);
  }
  return wave as SyncWave;
}

/**
 * The `backup-checks` Application: the proof side of the backups, written to `dist/backup-checks/<cluster>.yaml`.
 * For each cluster with backups, a PodMonitor and a PrometheusRule (`CnpgBackupAlerts`) in the cluster's namespace;
 * for each cluster whose drill is on, the restore drill (`CnpgRestoreDrill`) in the drill namespace. Its wave is not
 * picked: it is the one after its dependencies (`waveAfter`), since PrometheusRule and PodMonitor objects cannot be
 * applied before their CRDs, and the drill's ObjectStore needs its Secret.
 */
export class BackupChecks extends HomelabApplication {
  public readonly alerts: readonly CnpgBackupAlerts[];
  public readonly drills: readonly CnpgRestoreDrill[];

  constructor(scope: Construct, id: string, props: BackupChecksProps) {
    const name = props.name ?? 'backup-checks';
    const byCluster = <T extends { cluster: { name: string } }>(xs: readonly T[]) =>
      [...xs].sort((a, b) => (a.cluster.name < b.cluster.name ? -1 : a.cluster.name > b.cluster.name ? 1 : 0));
    const alerts = byCluster(props.alerts ?? []);
    const drills = byCluster(props.drills ?? []);
    if (alerts.length + drills.length === 0) {
      throw new Error(`application '${name}': has nothing to deliver; pass at least one of 'alerts' or 'drills', or drop the Application.`);
    }
    const elsewhere = drills.find((d) => d.namespace !== props.namespace);
    if (elsewhere) {
      throw new Error(`application '${name}': drill '${elsewhere.name}' is in namespace '${elsewhere.namespace}', not the drill namespace ` +
        `'${props.namespace}'; define it there.`);
    }
    const additional = [...new Set(alerts.map((a) => a.namespace))].filter((ns) => ns !== props.namespace).sort();
    super(scope, id, {
      name,
      project: props.project,
      repo: props.repo,
      sources: [{ kind: 'git-path', path: props.repo.distFile(ARGOCD_DIST.backupChecks) }],
      namespace: props.namespace,
      additionalNamespaces: additional,
      syncWave: waveAfter(name, props.dependsOn),
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: props.managedNamespaceMetadata,
      dependsOn: props.dependsOn,
    });
    this.alerts = alerts;
    this.drills = drills;
  }

  /** The file of each object: `backup-checks/<cluster>.yaml`, alerts first, then the drill. */
  public fileOfObjects(): [ApiObject, string][] {
    const file = (cluster: string) => `${ARGOCD_DIST.backupChecks}/${cluster}.yaml`;
    return [
      ...this.alerts.flatMap((a): [ApiObject, string][] => [[a.podMonitor, file(a.cluster.name)], [a.rule, file(a.cluster.name)]]),
      ...this.drills.flatMap((d): [ApiObject, string][] => [
        [d.sourceStore.resource, file(d.cluster.name)],
        [d.configMap, file(d.cluster.name)],
        [d.serviceAccount, file(d.cluster.name)],
        [d.role, file(d.cluster.name)],
        [d.roleBinding, file(d.cluster.name)],
        [d.cronJob, file(d.cluster.name)],
        ...(d.rule ? [[d.rule, file(d.cluster.name)] as [ApiObject, string]] : []),
      ]),
    ];
  }
}

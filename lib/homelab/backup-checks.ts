import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import type { ResolvedHomelabConfig } from '../config/homelab-config';
import { BackupChecks } from '../constructs/argocd/backup-checks';
import { HomelabApplication } from '../constructs/argocd/homelab-application';
import { HomelabProject } from '../constructs/argocd/homelab-project';
import { HomelabRepo } from '../constructs/argocd/homelab-repo';
import { CnpgBackupAlerts } from '../constructs/cnpg/cnpg-backup-alerts';
import { CnpgCluster } from '../constructs/cnpg/cnpg-cluster';
import { CnpgRestoreDrill } from '../constructs/cnpg/cnpg-restore-drill';
import { RESTORE_DRILL_NAMESPACE } from '../shared/backup';
import { podSecurityNamespaceMetadata } from '../shared/pod-security';
import { GENERATED_APPLICATIONS } from './validate-argocd-config';

/** The chart kube-prometheus-stack: the Application that installs it runs the Prometheus Operator the alerts are for. */
export const KUBE_PROMETHEUS_STACK_CHART = 'kube-prometheus-stack';

/** The Application of `apps` that installs kube-prometheus-stack, with the labels its Prometheus selects objects by. */
export function prometheusStack(
  apps: readonly HomelabApplication[],
): { app: HomelabApplication; selectorLabels: Record<string, string> } | undefined {
  for (const app of apps) {
    const source = app.sources.find((s) => s.kind === 'helm-chart' && s.chart === KUBE_PROMETHEUS_STACK_CHART);
    // kube-prometheus-stack 88.5.3 selects `release: <Helm release>` (templates/prometheus/prometheus.yaml, with the default
    // ruleSelectorNilUsesHelmValues and podMonitorSelectorNilUsesHelmValues); Argo CD's release name is the Application's
    // unless the source names one.
    if (source && source.kind === 'helm-chart') return { app, selectorLabels: { release: source.releaseName ?? app.name } };
  }
  return undefined;
}

/** What `defineBackupChecks` needs from the Argo CD chart. */
export interface BackupChecksContext {
  readonly project: HomelabProject;
  readonly repo: HomelabRepo;
  /** Every CNPG cluster of the config the tree knows, Phase-0 ones included, by config key. */
  readonly clusters: ReadonlyMap<string, CnpgCluster>;
  /** The Applications defined so far (the catalog among them). */
  readonly applications: readonly HomelabApplication[];
  /** The Application that delivers the SOPS Secrets (the drill namespace's object-store credentials). */
  readonly sopsSecrets: HomelabApplication;
}

/**
 * The `backup-checks` Application of the config, or undefined when no cluster has backups: alerts for every cluster
 * with `backup` (when the catalog installs kube-prometheus-stack) and a restore drill for every one whose
 * `backup.restoreDrill.enabled` is on.
 */
export function defineBackupChecks(scope: Construct, config: ResolvedHomelabConfig, ctx: BackupChecksContext): BackupChecks | undefined {
  const stack = prometheusStack(ctx.applications);
  const alerts: CnpgBackupAlerts[] = [];
  const drills: CnpgRestoreDrill[] = [];
  for (const name of Object.keys(config.postgresClusters).sort()) {
    const backup = config.postgresClusters[name].backup;
    const cluster = ctx.clusters.get(name);
    if (backup === undefined || cluster === undefined) continue;
    if (stack) alerts.push(new CnpgBackupAlerts(scope, `BackupAlerts-${name}`, { cluster, backupSchedule: backup.schedule, selectorLabels: stack.selectorLabels }));
    const drill = backup.restoreDrill;
    if (drill.enabled) {
      drills.push(new CnpgRestoreDrill(scope, `RestoreDrill-${name}`, {
        cluster,
        namespace: RESTORE_DRILL_NAMESPACE,
        schedule: drill.schedule,
        timeout: Duration.minutes(drill.timeoutMinutes),
        alertSelectorLabels: stack?.selectorLabels,
      }));
    }
  }
  if (alerts.length + drills.length === 0) return undefined;
  return new BackupChecks(scope, 'BackupChecks', {
    project: ctx.project,
    repo: ctx.repo,
    name: GENERATED_APPLICATIONS.backupChecks,
    alerts,
    drills,
    namespace: RESTORE_DRILL_NAMESPACE,
    // CNPG operands and the drill's kubectl comply with the restricted profile.
    managedNamespaceMetadata: podSecurityNamespaceMetadata('restricted'),
    dependsOn: [...(stack ? [stack.app] : []), ...(drills.length > 0 ? [ctx.sopsSecrets] : [])],
  });
}

import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { PodMonitor } from '../../../imports/prometheus-podmonitor-monitoring.coreos.com';
import { PrometheusRule, PrometheusRuleSpecGroupsRules, PrometheusRuleSpecGroupsRulesExpr } from '../../../imports/prometheus-rule-monitoring.coreos.com';
import { BARMAN_CLOUD_PLUGIN, cnpgScheduleProblem, scheduleMaxIntervalSeconds } from '../../shared/backup';
import { COMMON_LABELS } from '../../shared/labels';
import { CnpgCluster } from './cnpg-cluster';

/** Properties for `CnpgBackupAlerts`. */
export interface CnpgBackupAlertsProps {
  /** The cluster whose backups are watched; it must archive through the Barman Cloud plugin (`walArchive`). */
  readonly cluster: CnpgCluster;
  /** The schedule of its base backups (CNPG's six fields); the "backup too old" threshold is derived from it. */
  readonly backupSchedule: string;
  /**
   * Labels the Prometheus of the monitoring stack selects PodMonitors and PrometheusRules by. kube-prometheus-stack
   * 88.5.3 selects `release: <Helm release>` by default (`ruleSelectorNilUsesHelmValues`,
   * `podMonitorSelectorNilUsesHelmValues`: templates/prometheus/prometheus.yaml).
   */
  readonly selectorLabels: Readonly<Record<string, string>>;
  /**
   * Time a backup may be late beyond its schedule's longest gap: the backup's own duration and scrape delays.
   * @default Duration.hours(2)
   */
  readonly backupMargin?: Duration;
  /**
   * Where the alerts point the operator to.
   * @default 'README.md, "Alerts and restore drill"'
   */
  readonly runbook?: string;
}

/** The label Prometheus gives the `cnpg.io/cluster` pod label through the PodMonitor's `podTargetLabels`. */
export const CNPG_CLUSTER_TARGET_LABEL = 'cnpg_io_cluster';

/** `26h`, `45m`, `90s`: a Prometheus duration of whole seconds, in the largest unit that divides it. */
export function prometheusDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** Rule labels and annotations every alert here carries. */
function alert(name: string, expr: string, forDuration: string, severity: 'critical' | 'warning',
  summary: string, description: string): PrometheusRuleSpecGroupsRules {
  return {
    alert: name,
    expr: PrometheusRuleSpecGroupsRulesExpr.fromString(expr),
    for: forDuration,
    labels: { severity },
    annotations: { summary, description },
  };
}

/**
 * How Prometheus scrapes a CNPG cluster and what it alerts on about the cluster's backups: a `PodMonitor` for the
 * instances' metrics port and a `PrometheusRule` with
 *
 * - `CnpgWalArchivingFailing` (critical): the last WAL archiving attempt failed after the last success, from CNPG's
 *   default `pg_stat_archiver` query (CNPG v1.30.0 `config/manager/default-monitoring.yaml`: `last_failed_time`,
 *   `last_archived_time`, seconds since the epoch, -1 when never; read on the primary only, its `predicate_query`).
 *   Only when the cluster archives WAL.
 * - `CnpgBackupTooOld` (warning): the newest base backup the plugin knows of is older than the schedule's longest
 *   gap plus `backupMargin` (a daily schedule gives 26 h).
 * - `CnpgNoRecoverabilityPoint` (critical): the plugin knows of no point the cluster can be recovered to, for as
 *   long as that threshold.
 * - `CnpgBackupMetricsAbsent` (warning): Prometheus has no metrics of the cluster, so the alerts above cannot fire.
 *
 * The backup metrics are the Barman Cloud plugin's, exported through CNPG-I by every instance (plugin-barman-cloud
 * v0.14.0 `internal/cnpgi/instance/metrics.go`: `<plugin name with . and - as _>_first_recoverability_point`,
 * `_last_available_backup_timestamp`, `_last_failed_backup_timestamp`; 0 while the ObjectStore's status has no
 * recovery window for the server name). CNPG's own `cnpg_collector_last_available_backup_timestamp` and
 * `cnpg_collector_first_recoverability_point` are deprecated in 1.30.0 and read the Cluster status the in-tree
 * barmanObjectStore fills, not the plugin's (`pkg/management/postgres/webserver/metricserver/pg_collector.go`).
 *
 * The PodMonitor is ours because CNPG 1.30.0 deprecates `spec.monitoring.enablePodMonitor` and recommends defining
 * one by hand (`docs/src/monitoring.md`, "Deprecation of Automatic PodMonitor Creation"); it selects what CNPG's own
 * would (`pkg/specs/podmonitor.go`: `cnpg.io/cluster`, `cnpg.io/podRole: instance`, port `metrics`) and copies
 * `cnpg.io/cluster` onto every series as `cnpg_io_cluster` (prometheus-operator v0.93.1 `pkg/prometheus/promcfg.go`
 * sanitizes `podTargetLabels` that way).
 */
export class CnpgBackupAlerts extends Construct {
  public readonly cluster: CnpgCluster;
  public readonly namespace: string;
  public readonly backupSchedule: string;
  public readonly backupMargin: Duration;
  /** Seconds after which the newest backup counts as too old: the schedule's longest gap plus the margin. */
  public readonly backupAgeThresholdSeconds: number;
  /** The `PodMonitor` (named like the cluster, as CNPG's own would be). */
  public readonly podMonitor: PodMonitor;
  /** The `PrometheusRule` `<cluster>-backup-alerts`. */
  public readonly rule: PrometheusRule;
  /** The alert rules, for tests and the PromQL check. */
  public readonly alerts: readonly PrometheusRuleSpecGroupsRules[];

  constructor(scope: Construct, id: string, props: CnpgBackupAlertsProps) {
    super(scope, id);
    const cluster = props.cluster;
    this.cluster = cluster;
    this.namespace = cluster.namespace;
    this.backupSchedule = props.backupSchedule;
    this.backupMargin = props.backupMargin ?? Duration.hours(2);
    const runbook = props.runbook ?? 'README.md, "Alerts and restore drill"';
    const archive = cluster.walArchive;
    if (archive === undefined) {
      throw new Error(`${this.node.path}: cluster '${cluster.name}' has no 'walArchive', so it has no backups to alert on. ` +
        'Give the cluster a walArchive, or drop its alerts.');
    }
    const problem = cnpgScheduleProblem(this.backupSchedule);
    if (problem !== undefined) throw new Error(`${this.node.path}: 'backupSchedule' ${problem}`);
    if (Object.keys(props.selectorLabels).length === 0) {
      throw new Error(`${this.node.path}: 'selectorLabels' is empty; pass the labels the Prometheus selects rules and PodMonitors by, ` +
        'e.g. { release: \'prometheus\' } for kube-prometheus-stack.');
    }
    this.backupAgeThresholdSeconds = scheduleMaxIntervalSeconds(this.backupSchedule, true) + this.backupMargin.toSeconds();
    const threshold = prometheusDuration(this.backupAgeThresholdSeconds);

    const labels = { ...COMMON_LABELS, ...props.selectorLabels };
    this.podMonitor = new PodMonitor(this, 'PodMonitor', {
      metadata: { name: cluster.name, namespace: this.namespace, labels },
      spec: {
        selector: { matchLabels: { 'cnpg.io/cluster': cluster.name, 'cnpg.io/podRole': 'instance' } },
        podMetricsEndpoints: [{ port: 'metrics' }],
        podTargetLabels: ['cnpg.io/cluster'],
      },
    });

    const who = `CNPG cluster ${this.namespace}/${cluster.name}`;
    const sel = `namespace="${this.namespace}", ${CNPG_CLUSTER_TARGET_LABEL}="${cluster.name}"`;
    const by = `namespace, ${CNPG_CLUSTER_TARGET_LABEL}`;
    const plugin = BARMAN_CLOUD_PLUGIN.replace(/[.-]/g, '_');
    const server = `server name '${cluster.archiveServerName}' in ObjectStore ${archive.objectStore.namespace}/${archive.objectStore.name}`;
    const alerts: PrometheusRuleSpecGroupsRules[] = [];
    if (archive.walArchiving ?? true) {
      alerts.push(alert('CnpgWalArchivingFailing',
        `max by (${by}) (cnpg_pg_stat_archiver_last_failed_time{${sel}} > cnpg_pg_stat_archiver_last_archived_time{${sel}})`,
        '10m', 'critical',
        `${who}: WAL archiving is failing`,
        `The primary of ${who} has failed to archive WAL to ${server} since its last success, so point-in-time recovery ` +
        'stops at the last archived segment and pg_wal fills up. Check the plugin-barman-cloud sidecar\'s log and the ' +
        `object store's credentials and reachability; see ${runbook}.`));
    }
    alerts.push(alert('CnpgBackupTooOld',
      `time() - max by (${by}) (${plugin}_last_available_backup_timestamp{${sel}}) > ${this.backupAgeThresholdSeconds} ` +
      `and max by (${by}) (${plugin}_last_available_backup_timestamp{${sel}}) > 0`,
      '10m', 'warning',
      `${who}: the last base backup is older than ${threshold}`,
      `The newest base backup of ${who} (${server}) is older than its schedule '${this.backupSchedule}' allows plus ` +
      `${prometheusDuration(this.backupMargin.toSeconds())}. Look at the cluster's Backup objects (kubectl get backups -n ${this.namespace}) ` +
      `and the ScheduledBackup's events; see ${runbook}.`));
    alerts.push(alert('CnpgNoRecoverabilityPoint',
      `max by (${by}) (${plugin}_first_recoverability_point{${sel}}) == 0`,
      threshold, 'critical',
      `${who}: no point to recover to`,
      `The Barman Cloud plugin has known no recoverability point for ${server} for ${threshold}: the cluster cannot be ` +
      `restored. Check that a base backup completed (kubectl get backups -n ${this.namespace}) and the ObjectStore's status; see ${runbook}.`));
    alerts.push(alert('CnpgBackupMetricsAbsent',
      `absent(cnpg_collector_collections_total{${sel}})`,
      '15m', 'warning',
      `${who}: no metrics, so its backup alerts cannot fire`,
      `Prometheus has no metrics of ${who}: the PodMonitor ${this.namespace}/${cluster.name} selects no pod, or the ` +
      `Prometheus does not select it (labels ${JSON.stringify(props.selectorLabels)}). See ${runbook}.`));
    this.alerts = alerts;

    this.rule = new PrometheusRule(this, 'Resource', {
      metadata: { name: `${cluster.name}-backup-alerts`, namespace: this.namespace, labels },
      spec: { groups: [{ name: `cnpg-backup.${this.namespace}.${cluster.name}`, rules: alerts }] },
    });
  }
}

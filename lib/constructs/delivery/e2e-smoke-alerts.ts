import { Construct } from 'constructs';
import { PrometheusRule, PrometheusRuleSpecGroupsRules, PrometheusRuleSpecGroupsRulesExpr } from '../../../imports/prometheus-rule-monitoring.coreos.com';
import { scheduleMaxIntervalSeconds } from '../../shared/backup';
import { COMMON_LABELS } from '../../shared/labels';
import { prometheusDuration } from '../cnpg/cnpg-backup-alerts';
import { E2eSmokeCronJob } from './e2e-smoke-cron-job';

/** Properties for `E2eSmokeAlerts`. */
export interface E2eSmokeAlertsProps {
  /** The smoke CronJobs, all in one namespace and on one schedule; at least one. */
  readonly cronJobs: readonly E2eSmokeCronJob[];
  /**
   * Labels the Prometheus of the monitoring stack selects PrometheusRules by (kube-prometheus-stack: `release: <release>`).
   */
  readonly selectorLabels: Readonly<Record<string, string>>;
  /**
   * Name of the PrometheusRule.
   * @default 'e2e-smoke-alerts'
   */
  readonly name?: string;
  /**
   * Where the alerts point the operator to.
   * @default 'README.md, "End-to-end gate (Playwright)"'
   */
  readonly runbook?: string;
}

/**
 * Alerts on the smoke CronJobs, from kube-state-metrics' CronJob series (v2.20.0, the kube-prometheus-stack 88.5.3
 * subchart: `docs/metrics/workload/cronjob-metrics.md`; the same series as the restore drill's alerts):
 *
 * - `E2eSmokeFailed` (warning): the last run of a journey set ended without success: it was scheduled after the last
 *   success and none is running. (`kube_job_status_failed` counts every failed Job the history keeps, so it would stay
 *   up after a later success; the schedule-versus-success comparison is about the last run only.)
 * - `E2eSmokeNotSucceeded` (critical): no run succeeded for two schedule intervals plus a run's timeout, or never since the
 *   CronJob was created: users may not be able to reach or sign in to what the journeys open.
 *
 * Both carry `cronjob` (the journey set), so the monitoring stack's Alertmanager routes and groups them like the
 * platform's other alerts.
 */
export class E2eSmokeAlerts extends Construct {
  public readonly name: string;
  public readonly namespace: string;
  /** Seconds without a success after which `E2eSmokeNotSucceeded` fires. */
  public readonly staleAfterSeconds: number;
  public readonly alerts: readonly PrometheusRuleSpecGroupsRules[];
  public readonly resource: PrometheusRule;

  constructor(scope: Construct, id: string, props: E2eSmokeAlertsProps) {
    super(scope, id);
    this.name = props.name ?? 'e2e-smoke-alerts';
    const runbook = props.runbook ?? 'README.md, "End-to-end gate (Playwright)"';
    const [first] = props.cronJobs;
    if (first === undefined) throw new Error(`${this.node.path}: 'cronJobs' is empty; pass the smoke CronJobs to alert on.`);
    const other = props.cronJobs.find((c) => c.namespace !== first.namespace || c.schedule !== first.schedule);
    if (other) {
      throw new Error(`${this.node.path}: CronJob '${other.name}' (${other.namespace}, '${other.schedule}') differs from '${first.name}' ` +
        `(${first.namespace}, '${first.schedule}'); alert on one namespace and schedule per rule.`);
    }
    if (Object.keys(props.selectorLabels).length === 0) {
      throw new Error(`${this.node.path}: 'selectorLabels' is empty; pass the labels the Prometheus selects rules by, e.g. { release: 'prometheus' }.`);
    }
    this.namespace = first.namespace;
    const timeout = Math.max(...props.cronJobs.map((c) => c.run.timeout.toSeconds()));
    this.staleAfterSeconds = 2 * scheduleMaxIntervalSeconds(first.schedule, false) + timeout;
    const stale = prometheusDuration(this.staleAfterSeconds);
    const names = props.cronJobs.map((c) => c.name).sort();
    const sel = `namespace="${this.namespace}", cronjob=~"${names.join('|')}"`;
    this.alerts = [
      {
        alert: 'E2eSmokeFailed',
        expr: PrometheusRuleSpecGroupsRulesExpr.fromString(
          `kube_cronjob_status_last_schedule_time{${sel}} > kube_cronjob_status_last_successful_time{${sel}} ` +
          `and on (namespace, cronjob) kube_cronjob_status_active{${sel}} == 0`),
        for: '5m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'The last E2E smoke run of {{ $labels.cronjob }} failed',
          description: 'The last run of the Playwright journeys {{ $labels.namespace }}/{{ $labels.cronjob }} (WebKit) failed: a page did not ' +
            'render, a sign-in did not complete, or the suite could not be installed. The failed Job\'s logs name the journey; its ' +
            `video and trace are in the E2E artifacts store under the pod's name. See ${runbook}.`,
        },
      },
      {
        alert: 'E2eSmokeNotSucceeded',
        expr: PrometheusRuleSpecGroupsRulesExpr.fromString(
          `time() - kube_cronjob_status_last_successful_time{${sel}} > ${this.staleAfterSeconds} ` +
          `or (time() - kube_cronjob_created{${sel}} > ${this.staleAfterSeconds} ` +
          `unless on (namespace, cronjob) kube_cronjob_status_last_successful_time{${sel}})`),
        for: '10m',
        labels: { severity: 'critical' },
        annotations: {
          summary: `No E2E smoke run of {{ $labels.cronjob }} succeeded for ${stale}`,
          description: `The Playwright journeys {{ $labels.namespace }}/{{ $labels.cronjob }} have not succeeded for ${stale} (schedule ` +
            `'${first.schedule}'): users may not reach or sign in to what they open. Check the CronJob (suspended? failing?) and the ` +
            `last Jobs' logs; see ${runbook}.`,
        },
      },
    ];
    this.resource = new PrometheusRule(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace, labels: { ...COMMON_LABELS, ...props.selectorLabels } },
      spec: { groups: [{ name: `e2e-smoke.${this.namespace}`, rules: [...this.alerts] }] },
    });
  }
}

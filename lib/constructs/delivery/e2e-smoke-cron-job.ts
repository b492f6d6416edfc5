import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { cronJobScheduleProblem } from '../../shared/backup';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { dnsLabelProblem } from '../../shared/names';
import { PlaywrightRunProps, playwrightRunPodSpec, playwrightRunProblem } from './playwright-run';

/** Properties for `E2eSmokeCronJob`. */
export interface E2eSmokeCronJobProps {
  /** Name of the CronJob; its Jobs are `<name>-<11 digits>`, so at most 52 characters. */
  readonly name: string;
  readonly namespace: string;
  /** When the journeys run: a Kubernetes CronJob schedule, five fields. */
  readonly schedule: string;
  readonly run: PlaywrightRunProps;
}

/** The longest name a CronJob may have: its Jobs are named `<cronjob>-<11 digits>`, at most 63 characters. */
const MAX_CRONJOB_NAME = 52;

/**
 * The continuous smoke test of one journey set: a CronJob that runs the Playwright journeys on a schedule, one run at a
 * time (`concurrencyPolicy: Forbid`: a slow run is not doubled), keeping the last successful and the last three failed
 * Jobs. kube-state-metrics reports its result (`E2eSmokeAlerts`).
 */
export class E2eSmokeCronJob extends Construct {
  public readonly name: string;
  public readonly namespace: string;
  public readonly schedule: string;
  public readonly run: PlaywrightRunProps;
  public readonly resource: k8s.KubeCronJob;

  constructor(scope: Construct, id: string, props: E2eSmokeCronJobProps) {
    super(scope, id);
    this.name = props.name;
    this.namespace = props.namespace;
    this.schedule = props.schedule;
    this.run = props.run;
    const nameProblem = dnsLabelProblem(this.name, MAX_CRONJOB_NAME);
    if (nameProblem !== undefined) throw new Error(`${this.node.path}: 'name' '${this.name}' ${nameProblem}.`);
    const scheduleProblem = cronJobScheduleProblem(this.schedule);
    if (scheduleProblem !== undefined) throw new Error(`${this.node.path}: 'schedule' ${scheduleProblem}`);
    const runProblem = playwrightRunProblem(this.run);
    if (runProblem !== undefined) throw new Error(`${this.node.path}: 'run': ${runProblem}`);

    const labels = { ...COMMON_LABELS, ...selectorLabels('e2e-smoke', this.name) };
    this.resource = new k8s.KubeCronJob(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace, labels },
      spec: {
        schedule: this.schedule,
        concurrencyPolicy: 'Forbid',
        // A run missed by more than its timeout (a node down) waits for the next one instead of piling up.
        startingDeadlineSeconds: this.run.timeout.toSeconds(),
        successfulJobsHistoryLimit: 1,
        failedJobsHistoryLimit: 3,
        jobTemplate: {
          metadata: { labels },
          spec: {
            backoffLimit: 0,
            activeDeadlineSeconds: this.run.timeout.toSeconds(),
            template: { metadata: { labels }, spec: playwrightRunPodSpec(this.run) },
          },
        },
      },
    });
  }
}

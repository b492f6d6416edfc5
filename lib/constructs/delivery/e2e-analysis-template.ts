import { JsonPatch } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { AnalysisTemplate, AnalysisTemplateSpecMetricsFailureLimit } from '../../../imports/rollouts-analysistemplate-argoproj.io';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { dnsLabelProblem } from '../../shared/names';
import { sortKeys } from '../temporal/temporal-values';
import { PlaywrightRunProps, playwrightRunPodSpec, playwrightRunProblem } from './playwright-run';

/** Properties for `E2eAnalysisTemplate`. */
export interface E2eAnalysisTemplateProps {
  /** Name of the AnalysisTemplate, which the Rollout's analysis step names (`templateName`). */
  readonly name: string;
  /** Namespace of the Rollout: an analysis step reads templates of its own namespace, and the Job runs there. */
  readonly namespace: string;
  /**
   * The run; its `baseURL` is the canary Service, which Argo Rollouts points at the new pods only (without a traffic
   * router too: argo-rollouts v1.9.1 `rollout/service.go` `reconcileStableAndCanaryService`).
   */
  readonly run: PlaywrightRunProps;
}

/** The one metric of the template: its name is part of the Job's name and of the abort message. */
export const E2E_METRIC = 'e2e-journeys';

/**
 * The end-to-end gate of a canary: an Argo Rollouts `AnalysisTemplate` whose one metric uses the Job provider to run
 * the Playwright journeys (WebKit) against the canary before promotion.
 *
 * Argo Rollouts v1.9.1 (`metricproviders/job/job.go`): the Job is created in the AnalysisRun's namespace, owned by the
 * run; the measurement is Successful when the Job's `Complete` condition is set and Failed when `Failed` is. With no
 * `interval` the metric is measured once, and `failureLimit` 0 (the default, written out) lets no failure pass
 * (`docs/features/analysis.md`), so a failed journey fails the run, and a failed step analysis aborts the Rollout:
 * traffic and the canary Service go back to the stable pods (`rollout/analysis.go`, "Step-based analysis phase
 * error/failed"). The Job has `backoffLimit` 0: a flaky journey is a failure, not a retry.
 */
export class E2eAnalysisTemplate extends Construct {
  public readonly name: string;
  public readonly namespace: string;
  public readonly run: PlaywrightRunProps;
  /** The Job spec the provider creates a Job from. */
  public readonly jobSpec: k8s.JobSpec;
  public readonly resource: AnalysisTemplate;

  constructor(scope: Construct, id: string, props: E2eAnalysisTemplateProps) {
    super(scope, id);
    this.name = props.name;
    this.namespace = props.namespace;
    this.run = props.run;
    const nameProblem = dnsLabelProblem(this.name);
    if (nameProblem !== undefined) throw new Error(`${this.node.path}: 'name' '${this.name}' ${nameProblem}.`);
    const runProblem = playwrightRunProblem(this.run);
    if (runProblem !== undefined) throw new Error(`${this.node.path}: 'run': ${runProblem}`);

    const labels = { ...COMMON_LABELS, ...selectorLabels('e2e-gate', this.name) };
    this.jobSpec = {
      backoffLimit: 0,
      activeDeadlineSeconds: this.run.timeout.toSeconds(),
      template: { metadata: { labels }, spec: playwrightRunPodSpec(this.run) },
    };
    this.resource = new AnalysisTemplate(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace, labels },
      spec: {
        metrics: [{
          name: E2E_METRIC,
          failureLimit: AnalysisTemplateSpecMetricsFailureLimit.fromNumber(0),
          // Replaced below by the Kubernetes JobSpec: the generated CRD types spell every nested field of a JobSpec
          // differently from cdk8s-plus's k8s types, and the PodSpec is built once, with the k8s types, for all runs.
          provider: { job: { metadata: { labels }, spec: { template: {} } } },
        }],
      },
    });
    // Patches apply after cdk8s sorts the object's keys, so the JobSpec is sorted here, like the rest of the output.
    this.resource.addJsonPatch(JsonPatch.replace('/spec/metrics/0/provider/job/spec', sortKeys(k8s.toJson_JobSpec(this.jobSpec))));
  }
}

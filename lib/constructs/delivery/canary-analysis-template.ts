import { Construct } from 'constructs';
import { AnalysisTemplate, AnalysisTemplateSpecMetricsCount, AnalysisTemplateSpecMetricsFailureLimit } from '../../../imports/rollouts-analysistemplate-argoproj.io';
import { COMMON_LABELS } from '../../shared/labels';
import { goDurationSeconds, isGoDuration } from '../../shared/duration';
import { ROLLOUTS_POD_TEMPLATE_HASH_SERIES_LABEL } from './app-workload-monitor';

/** The argument every canary analysis receives: the new version's `rollouts-pod-template-hash` (`podTemplateHashValue: Latest`). */
export const CANARY_HASH_ARG = 'canary-hash';

/** Names of the two metrics, as the abort message shows them (`Metric "success-rate" assessed Failed ...`). */
export const CANARY_METRICS = { successRate: 'success-rate', latencyP95: 'latency-p95' } as const;

/** Properties for `CanaryAnalysisTemplate`. */
export interface CanaryAnalysisTemplateProps {
  /** Name of the app: the template is `<app>-canary-analysis`, its queries select the app's pods in `namespace`. */
  readonly app: string;
  /** Namespace of the app (AnalysisTemplates are namespaced: the Rollout reads its own namespace's). */
  readonly namespace: string;
  /** Address of the Prometheus to query, e.g. `http://prometheus-operated.monitoring.svc:9090`. */
  readonly prometheusAddress: string;
  /** Lowest share of non-5xx responses, above 0 and at most 1. */
  readonly successRateMin: number;
  /** Highest p95 latency in milliseconds, above 0. */
  readonly latencyP95MaxMs: number;
  /** Time between measurements, a Go duration (`1m`); also the rate window of the default queries. */
  readonly interval: string;
  /** Measurements per analysis, at least 1 (a step analysis with count 0 is never executed). */
  readonly count: number;
  /** Failed measurements tolerated, below `count`. */
  readonly failureLimit: number;
  /**
   * PromQL of the success rate, from 0 to 1; `{{args.canary-hash}}` selects the canary's pods.
   * @default - the non-5xx share of `http_requests_total` of the canary's pods over `interval`
   */
  readonly successRateQuery?: string;
  /**
   * PromQL of the p95 latency in milliseconds; `{{args.canary-hash}}` selects the canary's pods.
   * @default - `histogram_quantile(0.95, …)` of `http_request_duration_seconds_bucket` of the canary's pods, × 1000
   */
  readonly latencyQuery?: string;
}

/** The Prometheus provider's `address` (a plain http(s) URL without credentials). */
function addressProblem(address: string): string | undefined {
  return /^https?:\/\/[^\s/@]+(\/[^\s@]*)?$/.test(address) ? undefined : `must be an http(s) URL without credentials, got '${address}'`;
}

/**
 * The Prometheus analysis of an app's canary (argoproj.io/v1alpha1 `AnalysisTemplate`): two metrics measured `count`
 * times, `interval` apart, against the canary's pods only (`rollouts_pod_template_hash`):
 *
 * - `success-rate`: the non-5xx share of responses is at least `successRateMin`;
 * - `latency-p95`: the 95th-percentile latency is at most `latencyP95MaxMs`.
 *
 * More than `failureLimit` failed measurements fail the run, and Argo Rollouts v1.9.1 aborts the update ("Step-based
 * analysis phase error/failed", rollout/analysis.go) and scales the canary away. A query without traffic returns no
 * series or NaN (0/0): such a measurement passes, because no request failed; the E2E step is what sends traffic. The
 * Prometheus provider hands a vector to the condition as a list (`processResponse`, v1.9.1
 * metricproviders/prometheus/prometheus.go), so the conditions read `result[0]` and guard the empty list.
 *
 * @see https://argo-rollouts.readthedocs.io/en/stable/analysis/prometheus/
 */
export class CanaryAnalysisTemplate extends Construct {
  public readonly name: string;
  public readonly successRateQuery: string;
  public readonly latencyQuery: string;
  public readonly resource: AnalysisTemplate;

  constructor(scope: Construct, id: string, props: CanaryAnalysisTemplateProps) {
    super(scope, id);
    const fail = (prop: string, why: string) => new Error(`${this.node.path}: '${prop}' ${why}.`);
    const address = addressProblem(props.prometheusAddress);
    if (address) throw fail('prometheusAddress', address);
    if (!(props.successRateMin > 0 && props.successRateMin <= 1)) throw fail('successRateMin', `must be above 0 and at most 1, got ${props.successRateMin}`);
    if (!(props.latencyP95MaxMs > 0)) throw fail('latencyP95MaxMs', `must be above 0, got ${props.latencyP95MaxMs}`);
    if (!isGoDuration(props.interval) || goDurationSeconds(props.interval) === 0) throw fail('interval', `must be a Go duration above 0 such as '1m', got '${props.interval}'`);
    if (!Number.isInteger(props.count) || props.count < 1) {
      throw fail('count', `must be an integer of at least 1, got ${props.count}: Argo Rollouts never executes a step analysis with count 0`);
    }
    if (!Number.isInteger(props.failureLimit) || props.failureLimit < 0 || props.failureLimit >= props.count) {
      throw fail('failureLimit', `must be an integer from 0 to count - 1 (${props.count - 1}), got ${props.failureLimit}: otherwise the analysis can never fail`);
    }

    this.name = `${props.app}-canary-analysis`;
    const canaryPods = `namespace="${props.namespace}", ${ROLLOUTS_POD_TEMPLATE_HASH_SERIES_LABEL}="{{args.${CANARY_HASH_ARG}}}"`;
    const window = props.interval;
    this.successRateQuery = props.successRateQuery ??
      `sum(rate(http_requests_total{${canaryPods}, code!~"5.."}[${window}])) / sum(rate(http_requests_total{${canaryPods}}[${window}]))`;
    this.latencyQuery = props.latencyQuery ??
      `histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket{${canaryPods}}[${window}]))) * 1000`;
    const noData = 'len(result) == 0 || isNaN(result[0])';
    const metric = (name: string, query: string, condition: string) => ({
      name,
      interval: props.interval,
      count: AnalysisTemplateSpecMetricsCount.fromNumber(props.count),
      failureLimit: AnalysisTemplateSpecMetricsFailureLimit.fromNumber(props.failureLimit),
      successCondition: `${noData} || ${condition}`,
      provider: { prometheus: { address: props.prometheusAddress, query } },
    });
    this.resource = new AnalysisTemplate(this, 'Resource', {
      metadata: { name: this.name, namespace: props.namespace, labels: { ...COMMON_LABELS } },
      spec: {
        args: [{ name: CANARY_HASH_ARG }],
        metrics: [
          metric(CANARY_METRICS.successRate, this.successRateQuery, `result[0] >= ${props.successRateMin}`),
          metric(CANARY_METRICS.latencyP95, this.latencyQuery, `result[0] <= ${props.latencyP95MaxMs}`),
        ],
      },
    });
  }
}

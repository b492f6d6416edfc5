/**
 * `delivery.rollouts` (the Argo Rollouts install) and the per-application canary settings. Owned by the Rollouts
 * slice. Facts about the controller are from argoproj/argo-rollouts at tag v1.9.1.
 */
import { z } from 'zod';
import { goDuration, integer } from '../fields';
import { show } from '../messages';

/** The Argo Rollouts release the CRDs in imports/ (rollouts-*) were generated from. */
export const ARGO_ROLLOUTS_VERSION = 'v1.9.1';

export const RolloutsSchema = z.strictObject({
  /**
   * Address of the Prometheus the canary analyses query (`provider.prometheus.address` of each AnalysisTemplate).
   * @default - `http://prometheus-operated.<namespace>.svc:9090`, the governing Service the Prometheus Operator creates
   * for every Prometheus, in the namespace of the catalog Application that installs kube-prometheus-stack
   */
  prometheusAddress: z.string().regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, {
    error: (issue) => `${show(issue.input)} is not an http(s) URL; write it like 'http://prometheus-operated.monitoring.svc:9090'.`,
  }).optional(),
}).readonly();

/** One step of a canary (`spec.strategy.canary.steps[]` of the Rollout). */
const SetWeightStep = z.strictObject({
  /** Percentage of the traffic (without a router: of the pods) that goes to the new version. */
  setWeight: z.number().refine((v) => Number.isInteger(v) && v >= 1 && v <= 100, {
    error: (issue) => `setWeight must be an integer percentage from 1 to 100, got ${show(issue.input)}.`,
  }),
}).readonly();

const PauseStep = z.strictObject({
  /**
   * `{}` pauses until someone promotes (`kubectl argo rollouts promote`); `{ duration: '2m' }` waits and continues.
   * Argo CD reports the Application `Suspended` while the Rollout is paused.
   */
  pause: z.strictObject({
    /** A Go duration (`time.ParseDuration` in `RolloutPause.DurationSeconds`, v1.9.1 pkg/apis/rollouts/v1alpha1/types.go). */
    duration: goDuration.optional(),
  }).readonly(),
}).readonly();

/** Runs the app's Prometheus analysis (success rate and p95 latency) against the canary's pods. */
const AnalysisStep = z.strictObject({ analysis: z.strictObject({}).readonly() }).readonly();

/** Runs the app's end-to-end journeys (the E2E part's AnalysisTemplate, Job provider) against the canary Service. */
const E2eStep = z.strictObject({ e2e: z.strictObject({}).readonly() }).readonly();

export const CanaryStepSchema = z.union([SetWeightStep, PauseStep, AnalysisStep, E2eStep], {
  error: (issue) => `${show(issue.input)} is not a canary step; write one of { setWeight: 20 }, { pause: {} }, ` +
    "{ pause: { duration: '2m' } }, { analysis: {} }, { e2e: {} }.",
});

/** The canary's Prometheus analysis: what a step `{ analysis: {} }` measures and when it fails. */
export const CanaryAnalysisSchema = z.strictObject({
  /**
   * Lowest share of non-5xx responses of the canary's pods, from 0 (exclusive) to 1. @default 0.99
   */
  successRateMin: z.number().refine((v) => v > 0 && v <= 1, {
    error: (issue) => `successRateMin is a fraction above 0 and at most 1 (0.99 = 99 %), got ${show(issue.input)}.`,
  }).default(0.99),
  /** Highest 95th-percentile latency of the canary's responses, in milliseconds. @default 500 */
  latencyP95MaxMs: z.number().refine((v) => Number.isFinite(v) && v > 0, {
    error: (issue) => `latencyP95MaxMs must be a number of milliseconds above 0, got ${show(issue.input)}.`,
  }).default(500),
  /** Time between two measurements; also the PromQL rate window. @default '1m' */
  interval: goDuration.default('1m'),
  /**
   * Measurements per analysis step. Argo Rollouts does not run a step analysis whose count is 0 ("if the count has
   * value 0 and the analysis is defined in the steps, the analysis won't be executed", v1.9.1 docs/features/analysis.md),
   * so the step would pass unchecked. @default 5
   */
  count: z.number().refine((v) => Number.isInteger(v) && v >= 1, {
    error: (issue) => `count must be an integer of at least 1, got ${show(issue.input)}: Argo Rollouts never executes a step ` +
      'analysis with count 0, so the canary would be promoted unchecked.',
  }).default(5),
  /** Failed measurements tolerated; one more fails the analysis and aborts the canary. @default 1 */
  failureLimit: integer(0).default(1),
  /**
   * PromQL of the success rate (a single number from 0 to 1). `{{args.canary-hash}}` is the canary's
   * `rollouts-pod-template-hash`, which the PodMonitor copies onto every series as `rollouts_pod_template_hash`.
   * @default - non-5xx share of `http_requests_total` (label `code`) of the canary's pods over `interval`
   */
  successRateQuery: z.string().min(1).optional(),
  /**
   * PromQL of the 95th-percentile latency in milliseconds (same argument as `successRateQuery`).
   * @default - `histogram_quantile(0.95, …)` of `http_request_duration_seconds_bucket` of the canary's pods, × 1000
   */
  latencyQuery: z.string().min(1).optional(),
}).readonly();

/**
 * Who shifts the traffic. Without a router, Argo Rollouts approximates `setWeight` with the number of canary pods
 * behind the one stable Service; `nginx` makes ingress-nginx (the catalog's `ingress`) split requests by weight
 * through a canary Ingress the controller creates next to the app's Ingress.
 */
export const TrafficRouterSchema = z.strictObject({
  nginx: z.strictObject({
    /** Host name of the app's Ingress, e.g. `hello.homelab.example`. */
    host: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/, {
      error: (issue) => `${show(issue.input)} is not a host name; write it like 'hello.homelab.example'.`,
    }),
    /** IngressClass of ingress-nginx. @default 'nginx' */
    ingressClassName: z.string().min(1).default('nginx'),
  }).readonly(),
}).readonly();

/** The default steps: 20 % → 2 minutes → analysis → 50 % → 2 minutes → analysis (→ the E2E journeys, when the app has them). */
export const DEFAULT_CANARY_STEPS = [
  { setWeight: 20 }, { pause: { duration: '2m' } }, { analysis: {} },
  { setWeight: 50 }, { pause: { duration: '2m' } }, { analysis: {} },
] as const;

/** The canary of an application with `delivery: 'canary'`. */
export const CanarySchema = z.strictObject({
  /**
   * The steps, in order; after the last one the new version is promoted to 100 %.
   * @default - `DEFAULT_CANARY_STEPS`, followed by `{ e2e: {} }` when the app has `e2e`
   */
  steps: z.array(CanaryStepSchema).min(1).readonly().optional(),
  /** The Prometheus analysis of the `analysis` steps. @default {} */
  analysis: CanaryAnalysisSchema.prefault({}),
  /** The traffic router. @default - none: the weight is approximated by replica counts */
  trafficRouter: TrafficRouterSchema.optional(),
}).readonly();

export type CanaryStep = z.output<typeof CanaryStepSchema>;
export type ResolvedCanary = z.output<typeof CanarySchema>;

import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-30';
import {
  Rollout, RolloutSpecStrategyCanarySteps, RolloutSpecStrategyCanaryStepsPauseDuration, RolloutSpecTemplateSpecContainersReadinessProbeHttpGetPort,
} from '../../../imports/rollouts-rollout-argoproj.io';
import { COMMON_LABELS } from '../../shared/labels';
import { APP_HTTP_PORT_NAME, AppPodSettings, appPodTemplate, appSelectorLabels, AppService, validateAppPodSettings } from './app-workload';
import { CANARY_HASH_ARG } from './canary-analysis-template';

/** One step of a canary: a weight, a pause (without a duration: until promoted) or an analysis by the named templates. */
export type CanaryRolloutStep =
  | { readonly setWeight: number }
  | { readonly pause: { readonly duration?: Duration } }
  | { readonly analysis: { readonly templateNames: readonly string[] } };

/** ingress-nginx as the traffic router: an Ingress for the stable Service; Argo Rollouts adds the weighted canary Ingress. */
export interface CanaryNginxRouter {
  /** Host of the app's Ingress. */
  readonly host: string;
  /** IngressClass of ingress-nginx. */
  readonly ingressClassName: string;
}

/** Properties for `CanaryRollout`. */
export interface CanaryRolloutProps {
  /** What the pods run. */
  readonly app: AppPodSettings;
  /** Pods of the stable version. */
  readonly replicas: number;
  /** Name of the Service of the stable pods (`stableService`). */
  readonly stableServiceName: string;
  /** Name of the Service of the canary's pods (`canaryService`): what an E2E analysis tests before promotion. */
  readonly canaryServiceName: string;
  /** The steps; after the last one the new version is promoted. */
  readonly steps: readonly CanaryRolloutStep[];
  /**
   * Route traffic by weight through ingress-nginx.
   * @default - no router: Argo Rollouts approximates each weight by the number of canary pods
   */
  readonly nginx?: CanaryNginxRouter;
  /**
   * Time an update may go without progress before it is aborted (`progressDeadlineSeconds`, with
   * `progressDeadlineAbort`); a paused step does not count.
   * @default Duration.minutes(10)
   */
  readonly progressDeadline?: Duration;
}

/**
 * An app delivered by a canary (argoproj.io/v1alpha1 `Rollout`, Argo Rollouts v1.9.1) with its stable and canary
 * Services (and, with ingress-nginx, its Ingress). The first version is rolled out at once (a new Rollout skips its
 * steps, v1.9.1 docs/FAQ.md); every later version walks `steps`. The update is aborted, and the canary scaled away,
 * when an analysis fails (rollout/analysis.go: "Step-based analysis phase error/failed") or when it makes no progress
 * for `progressDeadline` (`progressDeadlineAbort: true`; without it, a stuck update only reports
 * `ProgressDeadlineExceeded`, rollout/sync.go). Nothing writes git back: the Rollout stays Degraded until a new
 * version is committed.
 *
 * @see https://argo-rollouts.readthedocs.io/en/stable/features/canary/
 */
export class CanaryRollout extends Construct {
  public readonly name: string;
  public readonly replicas: number;
  public readonly progressDeadline: Duration;
  public readonly steps: readonly CanaryRolloutStep[];
  public readonly stableService: AppService;
  public readonly canaryService: AppService;
  public readonly ingress?: k8s.KubeIngress;
  public readonly resource: Rollout;

  constructor(scope: Construct, id: string, props: CanaryRolloutProps) {
    super(scope, id);
    const path = this.node.path;
    validateAppPodSettings(path, props.app);
    this.name = props.app.name;
    this.replicas = props.replicas;
    this.progressDeadline = props.progressDeadline ?? Duration.minutes(10);
    this.steps = [...props.steps];
    if (!Number.isInteger(this.replicas) || this.replicas < 1) throw new Error(`${path}: 'replicas' must be an integer of at least 1, got ${this.replicas}.`);
    if (this.steps.length === 0) throw new Error(`${path}: 'steps' is empty; a canary needs at least one step.`);
    this.steps.forEach((s, i) => {
      if ('setWeight' in s && !(Number.isInteger(s.setWeight) && s.setWeight >= 1 && s.setWeight <= 100)) {
        throw new Error(`${path}: 'steps[${i}].setWeight' must be an integer from 1 to 100, got ${s.setWeight}.`);
      }
      if ('analysis' in s && s.analysis.templateNames.length === 0) throw new Error(`${path}: 'steps[${i}].analysis' names no template.`);
    });
    if (!props.nginx) {
      // Without a router the weight is a pod count, and a weight of 1-99 never rounds down to 0 pods
      // (approximateWeightedCanaryStableReplicaCounts, v1.9.1 utils/replicaset/canary.go).
      for (const s of this.steps) {
        if ('setWeight' in s && s.setWeight < 100 && this.replicas * s.setWeight < 100) {
          throw new Error(`${path}: 'replicas' (${this.replicas}) is too few for setWeight ${s.setWeight} without a traffic router: ` +
            `1 of ${this.replicas} pods would be the canary. Use at least ${Math.ceil(100 / s.setWeight)} replicas or a router.`);
        }
      }
    }

    this.stableService = new AppService(this, 'StableService', { name: props.stableServiceName, app: props.app });
    this.canaryService = new AppService(this, 'CanaryService', { name: props.canaryServiceName, app: props.app });
    if (props.nginx) {
      this.ingress = new k8s.KubeIngress(this, 'Ingress', {
        metadata: { name: this.name, namespace: props.app.namespace, labels: { ...COMMON_LABELS, ...appSelectorLabels(this.name) } },
        spec: {
          ingressClassName: props.nginx.ingressClassName,
          rules: [{
            host: props.nginx.host,
            http: {
              paths: [{
                path: '/', pathType: 'Prefix',
                backend: { service: { name: this.stableService.name, port: { name: APP_HTTP_PORT_NAME } } },
              }],
            },
          }],
        },
      });
    }

    const template = appPodTemplate(props.app, (name) => RolloutSpecTemplateSpecContainersReadinessProbeHttpGetPort.fromString(name));
    this.resource = new Rollout(this, 'Resource', {
      metadata: { name: this.name, namespace: props.app.namespace, labels: { ...COMMON_LABELS, ...appSelectorLabels(this.name) } },
      spec: {
        replicas: this.replicas,
        selector: { matchLabels: appSelectorLabels(this.name) },
        template,
        progressDeadlineSeconds: this.progressDeadline.toSeconds(),
        progressDeadlineAbort: true,
        strategy: {
          canary: {
            stableService: this.stableService.name,
            canaryService: this.canaryService.name,
            steps: this.steps.map(renderStep),
            trafficRouting: this.ingress ? { nginx: { stableIngress: this.ingress.name } } : undefined,
          },
        },
      },
    });
  }
}

function renderStep(step: CanaryRolloutStep): RolloutSpecStrategyCanarySteps {
  if ('setWeight' in step) return { setWeight: step.setWeight };
  if ('pause' in step) {
    const d = step.pause.duration;
    return { pause: d ? { duration: RolloutSpecStrategyCanaryStepsPauseDuration.fromNumber(d.toSeconds()) } : {} };
  }
  return {
    analysis: {
      templates: step.analysis.templateNames.map((templateName) => ({ templateName })),
      // Every template gets the canary's pod-template hash; one that declares no such argument ignores it
      // (MergeArgs keeps only the template's own arguments, v1.9.1 utils/analysis/helpers.go).
      args: [{ name: CANARY_HASH_ARG, valueFrom: { podTemplateHashValue: 'Latest' } }],
    },
  };
}

import * as YAML from 'yaml';
import { appOverlayFiles, distPrefixOf, SimulationInput } from '../../lib/simulation';

type Obj = Record<string, any>;

/**
 * A canary app added to a synthesized tree the way the app tier lays one out (lib/shared/delivery-layout.ts): its
 * generated folder `apps/<app>/` with a kustomization listing a Rollout, its stable and canary Services and an
 * AnalysisTemplate; its Argo CD Application reading the app's own directory `k8s/apps/<app>` outside the generated
 * tree, whose user-owned kustomization includes the generated folder; and an `argo-rollouts` Application whose
 * kustomization includes the release install.yaml (of which the simulation renders the controller's Deployment). Until the
 * app tier generates these, tests build them here.
 */
export interface CanaryAppOptions {
  readonly steps?: readonly Obj[];
  /** Adds a PostSync hook Job to the app (what the config rule forbids for a canary). @default false */
  readonly postSyncHook?: boolean;
  /** @default 3 */
  readonly rolloutsWave?: number;
  /** @default 4 */
  readonly appWave?: number;
  /** @default true */
  readonly withRolloutsController?: boolean;
}

export const CANARY_APP = 'web';
export const CANARY_IMAGE = 'forgejo-http.cicd.svc.cluster.local:3000/homelab/web:main';
export const DEFAULT_STEPS: readonly Obj[] = [
  { setWeight: 20 }, { pause: { duration: '1m' } }, { analysis: { templates: [{ templateName: 'web-success-rate' }] } },
  { setWeight: 60 }, { pause: { duration: '2m' } },
];
/** An indefinite pause before the analysis: promotion needs `kubectl argo rollouts promote`. */
export const MANUAL_GATE_STEPS: readonly Obj[] = [
  { setWeight: 20 }, { pause: {} }, { analysis: { templates: [{ templateName: 'web-success-rate' }] } }, { setWeight: 60 },
];

const yaml = (...objs: Obj[]) => objs.map((o) => YAML.stringify(o)).join('---\n');

function application(name: string, wave: number, path: string, namespace: string): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Application',
    metadata: { name, namespace: 'argocd', annotations: { 'argocd.argoproj.io/sync-wave': String(wave) } },
    spec: {
      project: 'homelab', destination: { server: 'https://kubernetes.default.svc', namespace },
      source: { repoURL: 'git@github.com:homelab-owner/homelab.git', targetRevision: 'main', path },
      syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'],
        retry: { limit: 5, backoff: { duration: '5s', factor: 2, maxDuration: '3m' } } },
    },
  };
}

export function withCanaryApp(input: SimulationInput, options: CanaryAppOptions = {}): SimulationInput {
  const prefix = distPrefixOf(input.tree);
  const tree = new Map(input.tree);
  const ns = CANARY_APP;
  const labels = { 'app.kubernetes.io/name': CANARY_APP };
  const rollout = {
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: CANARY_APP, namespace: ns, labels },
    spec: {
      replicas: 5, selector: { matchLabels: labels },
      strategy: { canary: { stableService: CANARY_APP, canaryService: `${CANARY_APP}-canary`, steps: options.steps ?? DEFAULT_STEPS } },
      template: { metadata: { labels }, spec: { containers: [{ name: CANARY_APP, image: CANARY_IMAGE, ports: [{ containerPort: 8080 }] }] } },
    },
  };
  const service = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels },
    spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
  const template = {
    apiVersion: 'argoproj.io/v1alpha1', kind: 'AnalysisTemplate', metadata: { name: 'web-success-rate', namespace: ns, labels },
    spec: { metrics: [{ name: 'success-rate', interval: '1m', count: 5, failureLimit: 1, successCondition: 'result[0] >= 0.99',
      provider: { prometheus: { address: 'http://prometheus.monitoring.svc:9090', query: 'sum(rate(http_requests_total{code!~"5.."}[1m])) / sum(rate(http_requests_total[1m]))' } } }] },
  };
  const hook = {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: `${CANARY_APP}-e2e`, namespace: ns, annotations: { 'argocd.argoproj.io/hook': 'PostSync' } },
    spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'e2e', image: 'mcr.microsoft.com/playwright:v1.62.1-noble' }] } } },
  };
  const files = ['rollout.yaml', 'services.yaml', 'analysis.yaml', ...(options.postSyncHook ? ['e2e.yaml'] : [])];
  tree.set(`apps/${CANARY_APP}/rollout.yaml`, yaml(rollout));
  tree.set(`apps/${CANARY_APP}/services.yaml`, yaml(service(CANARY_APP), service(`${CANARY_APP}-canary`)));
  tree.set(`apps/${CANARY_APP}/analysis.yaml`, yaml(template));
  if (options.postSyncHook) tree.set(`apps/${CANARY_APP}/e2e.yaml`, yaml(hook));
  tree.set(`apps/${CANARY_APP}/kustomization.yaml`, yaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: files }));
  tree.set(`argocd/apps/${CANARY_APP}.yaml`, yaml(application(CANARY_APP, options.appWave ?? 4, `k8s/apps/${CANARY_APP}`, ns)));
  if (options.withRolloutsController ?? true) {
    tree.set('delivery/argo-rollouts/kustomization.yaml', yaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization',
      namespace: 'argo-rollouts', resources: ['https://github.com/argoproj/argo-rollouts/releases/download/v1.9.1/install.yaml', 'network-policy.yaml'] }));
    tree.set('delivery/argo-rollouts/network-policy.yaml', yaml({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy',
      metadata: { name: 'argo-rollouts' }, spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] } }));
    tree.set('argocd/apps/argo-rollouts.yaml', yaml(application('argo-rollouts', options.rolloutsWave ?? 3, `${prefix}delivery/argo-rollouts`, 'argo-rollouts')));
  }
  // The app's own directory: the user-owned kustomization over the generated folder (k8s/apps/web → k8s/generated/apps/web).
  const repoFiles = new Map([...(input.repoFiles ?? []), ...appOverlayFiles(tree, [{ name: CANARY_APP, overlayPath: `k8s/apps/${CANARY_APP}` }])]);
  return { ...input, tree, repoFiles };
}

import { Chart, Duration, Testing } from 'cdk8s';
import { AppPodSettings, imageReferenceProblem, RollingAppWorkload } from '../../lib/constructs/delivery/app-workload';
import { AppPodMonitor } from '../../lib/constructs/delivery/app-workload-monitor';
import { argoRolloutsKustomization } from '../../lib/constructs/delivery/argo-rollouts-install';
import { CanaryAnalysisTemplate, CanaryAnalysisTemplateProps } from '../../lib/constructs/delivery/canary-analysis-template';
import { CanaryRollout, CanaryRolloutProps } from '../../lib/constructs/delivery/canary-rollout';
import { problemsOfObjects } from '../validation/util';

const APP: AppPodSettings = {
  name: 'shop', namespace: 'shop', image: 'registry.lan:3000/owner/shop:1.2.3', port: 8080, healthPath: '/healthz',
  runAsUser: 65532, cpuRequest: '50m', memory: '64Mi',
};

const ANALYSIS: CanaryAnalysisTemplateProps = {
  app: 'shop', namespace: 'shop', prometheusAddress: 'http://prometheus-operated.monitoring.svc:9090',
  successRateMin: 0.99, latencyP95MaxMs: 500, interval: '1m', count: 5, failureLimit: 1,
};

const STEPS: CanaryRolloutProps['steps'] = [
  { setWeight: 20 }, { pause: { duration: Duration.minutes(2) } }, { analysis: { templateNames: ['shop-canary-analysis'] } },
  { setWeight: 50 }, { pause: {} }, { analysis: { templateNames: ['shop-e2e'] } },
];

function chart(): Chart {
  return new Chart(Testing.app(), 'test');
}

function canary(props: Partial<CanaryRolloutProps> = {}): { rollout: CanaryRollout; objects: any[] } {
  const c = chart();
  const rollout = new CanaryRollout(c, 'Rollout', { app: APP, replicas: 5, stableServiceName: 'shop', canaryServiceName: 'shop-canary', steps: STEPS, ...props });
  return { rollout, objects: Testing.synth(c) };
}

const byKind = (objects: any[], kind: string) => objects.filter((o) => o.kind === kind);

describe('CanaryRollout', () => {
  test('a Rollout with the steps in order, the stable and canary Services, abort on a stuck update, valid against the pinned CRD', () => {
    // GIVEN / WHEN
    const { rollout, objects } = canary();
    // THEN
    expect(problemsOfObjects(...objects)).toEqual([]);
    const [r] = byKind(objects, 'Rollout');
    expect(r.apiVersion).toBe('argoproj.io/v1alpha1');
    expect(r.spec.strategy.canary.steps).toEqual([
      { setWeight: 20 },
      { pause: { duration: 120 } },
      { analysis: { templates: [{ templateName: 'shop-canary-analysis' }], args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } }] } },
      { setWeight: 50 },
      { pause: {} },
      { analysis: { templates: [{ templateName: 'shop-e2e' }], args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } }] } },
    ]);
    expect(r.spec.strategy.canary).toMatchObject({ stableService: 'shop', canaryService: 'shop-canary' });
    expect(r.spec.strategy.canary.trafficRouting).toBeUndefined();
    expect(r.spec).toMatchObject({ replicas: 5, progressDeadlineSeconds: 600, progressDeadlineAbort: true });
    expect(rollout.progressDeadline.toSeconds()).toBe(600);
    expect(byKind(objects, 'Service').map((s) => [s.metadata.name, s.spec.selector])).toEqual([
      ['shop', { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/instance': 'shop' }],
      ['shop-canary', { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/instance': 'shop' }],
    ]);
    expect(r.spec.selector.matchLabels).toEqual(byKind(objects, 'Service')[0].spec.selector);
  });

  test('the pods are restricted: non-root, no privilege, no capabilities, RuntimeDefault seccomp, read-only root, requests', () => {
    const [r] = byKind(canary().objects, 'Rollout');
    const [c] = r.spec.template.spec.containers;
    expect(c.securityContext).toEqual({
      runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, allowPrivilegeEscalation: false, privileged: false,
      readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(c.resources).toEqual({ requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '64Mi' } });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.image).toBe('registry.lan:3000/owner/shop:1.2.3');
  });

  test('with ingress-nginx: an Ingress for the stable Service, named as the Rollout\'s stableIngress', () => {
    const { rollout, objects } = canary({ replicas: 2, nginx: { host: 'shop.homelab.example', ingressClassName: 'nginx' } });
    expect(problemsOfObjects(...objects)).toEqual([]);
    const [r] = byKind(objects, 'Rollout');
    const [ingress] = byKind(objects, 'Ingress');
    expect(r.spec.strategy.canary.trafficRouting).toEqual({ nginx: { stableIngress: rollout.ingress!.name } });
    expect(ingress.spec.rules[0]).toEqual({ host: 'shop.homelab.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { name: 'http' } } } }] } });
  });

  test('throws for :latest, an untagged image, too few replicas without a router, a weight out of range, an empty analysis', () => {
    expect(() => canary({ app: { ...APP, image: 'registry.lan/shop:latest' } })).toThrow(
      "test/Rollout: 'image': image 'registry.lan/shop:latest' is ':latest', which changes under the same manifest; pin a version or a digest.");
    expect(() => canary({ app: { ...APP, image: 'registry.lan:3000/shop' } })).toThrow(
      "test/Rollout: 'image': image 'registry.lan:3000/shop' has no tag or digest; pin it, e.g. 'registry.lan:3000/shop:1.0.0'.");
    expect(() => canary({ replicas: 2 })).toThrow(
      "test/Rollout: 'replicas' (2) is too few for setWeight 20 without a traffic router: 1 of 2 pods would be the canary. Use at least 5 replicas or a router.");
    expect(() => canary({ steps: [{ setWeight: 0 }] })).toThrow("test/Rollout: 'steps[0].setWeight' must be an integer from 1 to 100, got 0.");
    expect(() => canary({ steps: [{ analysis: { templateNames: [] } }] })).toThrow("test/Rollout: 'steps[0].analysis' names no template.");
    expect(() => canary({ steps: [] })).toThrow("test/Rollout: 'steps' is empty; a canary needs at least one step.");
    expect(() => canary({ app: { ...APP, runAsUser: 0 } })).toThrow(
      "test/Rollout: 'runAsUser' must be a non-root user id (at least 1), got 0: the restricted Pod Security profile refuses root.");
    expect(imageReferenceProblem(`registry.lan/shop@sha256:${'a'.repeat(64)}`)).toBeUndefined();
  });
});

describe('CanaryAnalysisTemplate', () => {
  function template(props: Partial<CanaryAnalysisTemplateProps> = {}) {
    const c = chart();
    const t = new CanaryAnalysisTemplate(c, 'Analysis', { ...ANALYSIS, ...props });
    return { t, objects: Testing.synth(c) };
  }

  test('success rate and p95 latency of the canary\'s pods, with the thresholds, count, interval and failureLimit; valid against the pinned CRD', () => {
    const { t, objects } = template({ successRateMin: 0.95, latencyP95MaxMs: 250, interval: '30s', count: 4, failureLimit: 2 });
    expect(problemsOfObjects(...objects)).toEqual([]);
    const [a] = objects;
    expect(a.metadata).toMatchObject({ name: 'shop-canary-analysis', namespace: 'shop' });
    expect(a.spec.args).toEqual([{ name: 'canary-hash' }]);
    const canaryPods = 'namespace="shop", rollouts_pod_template_hash="{{args.canary-hash}}"';
    expect(a.spec.metrics).toEqual([
      {
        name: 'success-rate', interval: '30s', count: 4, failureLimit: 2,
        successCondition: 'len(result) == 0 || isNaN(result[0]) || result[0] >= 0.95',
        provider: { prometheus: { address: 'http://prometheus-operated.monitoring.svc:9090',
          query: `sum(rate(http_requests_total{${canaryPods}, code!~"5.."}[30s])) / sum(rate(http_requests_total{${canaryPods}}[30s]))` } },
      },
      {
        name: 'latency-p95', interval: '30s', count: 4, failureLimit: 2,
        successCondition: 'len(result) == 0 || isNaN(result[0]) || result[0] <= 250',
        provider: { prometheus: { address: 'http://prometheus-operated.monitoring.svc:9090',
          query: `histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket{${canaryPods}}[30s]))) * 1000` } },
      },
    ]);
    expect(t.name).toBe('shop-canary-analysis');
  });

  test('overridden queries are used as written', () => {
    const { objects } = template({ successRateQuery: 'vector(1)', latencyQuery: 'vector(2)' });
    expect(objects[0].spec.metrics.map((m: any) => m.provider.prometheus.query)).toEqual(['vector(1)', 'vector(2)']);
  });

  test('throws for count 0, a failureLimit that can never be exceeded, thresholds out of range, a bad address', () => {
    expect(() => template({ count: 0 })).toThrow(
      "test/Analysis: 'count' must be an integer of at least 1, got 0: Argo Rollouts never executes a step analysis with count 0.");
    expect(() => template({ count: 2, failureLimit: 2 })).toThrow(
      "test/Analysis: 'failureLimit' must be an integer from 0 to count - 1 (1), got 2: otherwise the analysis can never fail.");
    expect(() => template({ successRateMin: 1.5 })).toThrow("test/Analysis: 'successRateMin' must be above 0 and at most 1, got 1.5.");
    expect(() => template({ latencyP95MaxMs: 0 })).toThrow("test/Analysis: 'latencyP95MaxMs' must be above 0, got 0.");
    expect(() => template({ interval: '0s' })).toThrow("test/Analysis: 'interval' must be a Go duration above 0 such as '1m', got '0s'.");
    expect(() => template({ prometheusAddress: 'http://user:pw@prom:9090' })).toThrow(
      "test/Analysis: 'prometheusAddress' must be an http(s) URL without credentials, got 'http://user:pw@prom:9090'.");
  });
});

describe('RollingAppWorkload and AppPodMonitor', () => {
  test('a Deployment (one pod at a time, never below the count) and its Service; a PodMonitor copying the pod-template hash', () => {
    const c = chart();
    new RollingAppWorkload(c, 'Workload', { app: APP, replicas: 2, serviceName: 'shop' });
    new AppPodMonitor(c, 'Monitor', { app: 'shop', namespace: 'shop', metricsPath: '/metrics', selectorLabels: { release: 'prometheus' } });
    const objects = Testing.synth(c);
    expect(problemsOfObjects(...objects)).toEqual([]);
    const [d] = byKind(objects, 'Deployment');
    expect(d.spec).toMatchObject({ replicas: 2, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    expect(d.spec.template.spec.containers[0].securityContext.privileged).toBe(false);
    const [m] = byKind(objects, 'PodMonitor');
    expect(m.metadata.labels.release).toBe('prometheus');
    expect(m.spec).toEqual({
      selector: { matchLabels: { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/instance': 'shop' } },
      podMetricsEndpoints: [{ port: 'http', path: '/metrics' }],
      podTargetLabels: ['rollouts-pod-template-hash'],
    });
  });
});

describe('argoRolloutsKustomization', () => {
  test('the v1.9.1 release asset in argo-rollouts, the image pinned to the tag again, resource requests', () => {
    expect(argoRolloutsKustomization('v1.9.1')).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: 'argo-rollouts',
      resources: ['https://github.com/argoproj/argo-rollouts/releases/download/v1.9.1/install.yaml'],
      images: [{ name: 'quay.io/argoproj/argo-rollouts', newTag: 'v1.9.1' }],
      patches: [{
        target: { group: 'apps', version: 'v1', kind: 'Deployment', name: 'argo-rollouts' },
        patch: '[{"op":"add","path":"/spec/template/spec/containers/0/resources/requests","value":{"cpu":"50m","memory":"128Mi"}}]',
      }],
    });
    expect(() => argoRolloutsKustomization('latest')).toThrow("argoRolloutsKustomization: 'version' must be a release tag such as 'v1.9.1', got 'latest'.");
  });
});

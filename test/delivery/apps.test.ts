import { ApiObject, App } from 'cdk8s';
import YAML from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { DeliveryAppConfig, HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { ArgoCdChart } from '../../lib/homelab/argocd-chart';
import { overlayKustomization } from '../../lib/homelab/delivery/rollouts';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { e2eAnalysisTemplateName } from '../../lib/shared/delivery-layout';
import { ForgejoEndpoint } from '../../lib/shared/git-urls';
import { serializeFiles } from '../../lib/output/output-tree';

function docs(content: string | undefined): any[] {
  if (content === undefined) throw new Error('no such file');
  return YAML.parseAllDocuments(content).map((d) => d.toJSON()).filter((d) => d);
}

/** The reference homelab with `apps` as its delivery apps and `applications` added to the catalog. */
function withApps(apps: Record<string, DeliveryAppConfig>, applications: Record<string, unknown> = {}): HomelabConfig {
  return {
    ...REFERENCE_HOMELAB,
    argocd: { ...REFERENCE_HOMELAB.argocd, applications: { ...REFERENCE_HOMELAB.argocd.applications, ...applications } as any },
    delivery: { ...REFERENCE_HOMELAB.delivery!, apps },
  };
}

const FORGEJO = { inClusterHttpUrl: 'http://forgejo-http.cicd.svc.cluster.local:3000' } as ForgejoEndpoint;

describe('the app tier of the reference homelab (hello: canary, status: rolling)', () => {
  // synthesizeHomelab validates every object against the pinned schemas (the Rollouts v1.9.1 CRDs among them).
  const { tree, argocd } = synthesizeHomelab(REFERENCE_HOMELAB);
  const apps = argocd.applications;

  test('argo-rollouts: the release manifest\'s kustomization, one wave after the kube-prometheus-stack Application', () => {
    const controller = apps.get('argo-rollouts')!;
    expect(controller.dependsOn.map((a) => a.name)).toEqual(['prometheus']);
    expect(controller.syncWave).toBe(apps.get('prometheus')!.syncWave + 1);
    const [rendered] = docs(tree.get('argocd/apps/argo-rollouts.yaml'));
    expect(rendered.spec.source).toEqual({ repoURL: argocd.repo.url, targetRevision: 'main', path: 'k8s/generated/delivery/argo-rollouts' });
    expect(rendered.spec.destination.namespace).toBe('argo-rollouts');
    expect(rendered.spec.syncPolicy.syncOptions).toEqual(['CreateNamespace=true', 'ServerSideApply=true']);
    const [k] = docs(tree.get('delivery/argo-rollouts/kustomization.yaml'));
    expect(k.resources).toEqual(['https://github.com/argoproj/argo-rollouts/releases/download/v1.9.1/install.yaml']);
    expect(k.images).toEqual([{ name: 'quay.io/argoproj/argo-rollouts', newTag: 'v1.9.1' }]);
    // The project may create what install.yaml holds: its CRDs and cluster RBAC.
    const kinds = argocd.project.resource.toJson().spec.clusterResourceWhitelist.map((g: any) => `${g.group}/${g.kind}`);
    expect(kinds).toEqual(expect.arrayContaining(['apiextensions.k8s.io/CustomResourceDefinition', 'rbac.authorization.k8s.io/ClusterRole']));
  });

  test('each app: an Application reading the app\'s overlay as a kustomize source (no directory block), after what it needs', () => {
    const hello = apps.get('hello')!;
    // kyverno-policies: the Kyverno part's Application, which the reference delivery defines
    expect(hello.dependsOn.map((a) => a.name)).toEqual(['argo-rollouts', 'prometheus', 'kyverno-policies']);
    expect(hello.syncWave).toBe(Math.max(...hello.dependsOn.map((a) => a.syncWave)) + 1);
    expect(apps.get('status')!.dependsOn.map((a) => a.name)).toEqual(['prometheus', 'kyverno-policies']);
    const [rendered] = docs(tree.get('argocd/apps/hello.yaml'));
    expect(rendered.spec.source).toEqual({ repoURL: argocd.repo.url, targetRevision: 'main', path: 'k8s/apps/hello' });
    expect(rendered.spec.syncPolicy.syncOptions).toEqual(['CreateNamespace=true']);
    expect(rendered.spec.syncPolicy.managedNamespaceMetadata.labels).toEqual({
      'homelab.dev/tier': 'app',
      'pod-security.kubernetes.io/audit': 'restricted',
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/warn': 'restricted',
    });
  });

  test('Phase 0 creates each app namespace with the app-tier label too, so Kyverno selects it before Argo CD syncs', () => {
    const namespaces = docs(tree.get('bootstrap/01-namespaces.yaml'));
    const hello = namespaces.find((n) => n.metadata.name === 'hello');
    expect(hello.metadata.labels).toMatchObject({ 'homelab.dev/tier': 'app', 'pod-security.kubernetes.io/enforce': 'restricted' });
    expect(namespaces.find((n) => n.metadata.name === 'argo-rollouts').metadata.labels['homelab.dev/tier']).toBeUndefined();
  });

  test('the canary app\'s folder: a Rollout, its Services, the analysis and the PodMonitor, listed by a generated kustomization', () => {
    expect(docs(tree.get('apps/hello/kustomization.yaml'))).toEqual([{
      apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization',
      resources: ['analysis.yaml', 'e2e.yaml', 'pod-monitor.yaml', 'services.yaml', 'workload.yaml'],
    }]);
    const objects = ['analysis', 'pod-monitor', 'services', 'workload'].flatMap((f) => docs(tree.get(`apps/hello/${f}.yaml`)));
    expect(objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'AnalysisTemplate/hello/hello-canary-analysis', 'PodMonitor/hello/hello', 'Service/hello/hello', 'Service/hello/hello-canary', 'Rollout/hello/hello',
    ]);
    const rollout = objects.find((o) => o.kind === 'Rollout');
    expect(rollout.spec.replicas).toBe(5);
    expect(rollout.spec.template.spec.containers[0].image).toBe('forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/hello:1.0.0');
    // No object of a canary app carries a hook or a sync wave: its sync is single-step.
    expect(objects.filter((o) => Object.keys(o.metadata.annotations ?? {}).some((a) => a.startsWith('argocd.argoproj.io/')))).toEqual([]);
    expect(objects.find((o) => o.kind === 'AnalysisTemplate').spec.metrics[0].provider.prometheus.address).toBe('http://prometheus-operated.monitoring.svc:9090');
  });

  test('the rolling app\'s folder: a Deployment and its Service, no Rollout', () => {
    expect(docs(tree.get('apps/status/kustomization.yaml'))[0].resources).toEqual(['e2e.yaml', 'pod-monitor.yaml', 'services.yaml', 'workload.yaml']);
    expect(docs(tree.get('apps/status/workload.yaml')).map((o) => o.kind)).toEqual(['Deployment']);
  });

  test('the overlay the README documents: one resource, the generated folder, relative to the app\'s directory', () => {
    expect(overlayKustomization('k8s/apps/hello', 'k8s/generated', 'hello')).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['../../generated/apps/hello'],
    });
    expect(overlayKustomization('k8s/apps/hello', '.', 'hello').resources).toEqual(['../../../apps/hello']);
  });
});

describe('apps with e2e, routers, policies', () => {
  const shop: DeliveryAppConfig = { image: 'homelab-owner/shop', tag: '2.0.0', delivery: 'canary', e2e: { scenarios: ['shop/checkout.spec.ts'] } };

  test('an app with e2e: the kustomization lists the E2E part\'s file, and the Rollout ends with the analysis of its E2E template', () => {
    // The chart alone: the E2E part writes e2e.yaml, and synthesizeHomelab's output check refuses a kustomization entry without its file.
    const chart = new ArgoCdChart(new App(), 'ArgoCd', { config: parseHomelabConfig(withApps({ shop })), forgejo: FORGEJO });
    const tree = serializeFiles(chart.renderFiles());
    expect(docs(tree.get('apps/shop/kustomization.yaml'))[0].resources).toEqual(['analysis.yaml', 'e2e.yaml', 'pod-monitor.yaml', 'services.yaml', 'workload.yaml']);
    const [rollout] = docs(tree.get('apps/shop/workload.yaml'));
    const steps = rollout.spec.strategy.canary.steps;
    expect(steps[steps.length - 1].analysis.templates).toEqual([{ templateName: e2eAnalysisTemplateName('shop') }]);
    expect(steps.filter((s: any) => s.analysis).map((s: any) => s.analysis.templates[0].templateName))
      .toEqual(['shop-canary-analysis', 'shop-canary-analysis', 'shop-e2e']);
  });

  test('an app waits for the kyverno-policies Application when there is one, and for ingress-nginx with the nginx router', () => {
    // GIVEN
    // (kyverno-policies is the Kyverno part's Application, which the reference delivery defines)
    const config = withApps({ shop: { ...shop, e2e: undefined, canary: { trafficRouter: { nginx: { host: 'shop.homelab.example' } } } } });
    // WHEN
    const { tree, argocd } = synthesizeHomelab(config);
    // THEN
    const app = argocd.applications.get('shop')!;
    expect(app.dependsOn.map((a) => a.name)).toEqual(['argo-rollouts', 'prometheus', 'kyverno-policies', 'ingress']);
    expect(app.syncWave).toBe(Math.max(...app.dependsOn.map((a) => a.syncWave)) + 1);
    const [rollout] = docs(tree.get('apps/shop/workload.yaml'));
    expect(rollout.spec.replicas).toBe(2);
    expect(rollout.spec.strategy.canary.trafficRouting).toEqual({ nginx: { stableIngress: 'shop' } });
    expect(docs(tree.get('apps/shop/services.yaml')).map((o) => o.kind)).toEqual(['Service', 'Service', 'Ingress']);
  });

  test('without a canary app there is no argo-rollouts Application', () => {
    const { argocd } = synthesizeHomelab(withApps({ status: { image: 'homelab-owner/status', tag: '1.0.0' } }));
    expect(argocd.applications.has('argo-rollouts')).toBe(false);
  });

  test('fails when an object in a canary app\'s namespace is a hook or has a sync wave: a paused Rollout would hold the sync', () => {
    // GIVEN
    const chart = new ArgoCdChart(new App(), 'ArgoCd', { config: parseHomelabConfig(withApps({ shop })), forgejo: FORGEJO });
    new ApiObject(chart, 'Hook', {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: { name: 'shop-e2e', namespace: 'shop', annotations: { 'argocd.argoproj.io/hook': 'PostSync' } },
    });
    // WHEN / THEN
    expect(() => chart.render()).toThrow(
      "delivery.apps.shop: Job 'shop-e2e' in namespace 'shop' has the annotation argocd.argoproj.io/hook: 'PostSync', which makes the canary " +
      "app's sync multi-step, so a paused Rollout (Suspended) would hold the sync until its timeout. Gate the canary with an analysis step " +
      'instead, and remove the annotation.');
  });

  test('fails when an app has the name of another Application', () => {
    expect(() => synthesizeHomelab(withApps({ grafana: { image: 'homelab-owner/grafana', tag: '1.0.0' } }))).toThrow(
      "delivery.apps.grafana: 'grafana' is also argocd.applications.grafana; each app is an Argo CD Application of its own, so its name must " +
      'be free. Rename the app, or remove the catalog entry.');
  });
});

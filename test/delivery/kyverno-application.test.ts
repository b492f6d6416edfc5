// KyvernoApplication: the chart at the pinned version with generated values through $values, and its guards.
import { Testing } from 'cdk8s';
import { KyvernoApplication, KyvernoApplicationProps } from '../../lib/constructs/delivery/kyverno-application';
import { kyvernoValues } from '../../lib/constructs/delivery/kyverno-values';
import { find, makeProjectChart } from '../constructs/argocd/util';

function kyverno(overrides: Partial<KyvernoApplicationProps> = {}) {
  const base = makeProjectChart();
  const app = new KyvernoApplication(base.chart, 'Kyverno', { project: base.project, repo: base.repo, syncWave: 1, ...overrides });
  return { ...base, app };
}

describe('KyvernoApplication', () => {
  test('defaults: chart 3.9.0 from kyverno.github.io, values in dist/values/kyverno.yaml, kube-system excluded, 3 replicas', () => {
    // WHEN
    const { app, chart } = kyverno();
    // THEN
    expect([app.name, app.namespace, app.chartVersion, app.valuesFile]).toEqual(['kyverno', 'kyverno', '3.9.0', 'values/kyverno.yaml']);
    expect(app.excludedNamespaces).toEqual(['kube-system']);
    expect(app.admissionControllerReplicas).toBe(3);
    expect(app.clusterResources.map((k) => k.kind)).toEqual(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding']);
    const json = find(Testing.synth(chart), 'Application', 'kyverno');
    expect(json.spec.sources[0]).toEqual({ repoURL: 'https://kyverno.github.io/kyverno/', chart: 'kyverno', targetRevision: '3.9.0',
      helm: { releaseName: 'kyverno', valueFiles: ['$values/k8s/generated/values/kyverno.yaml'] } });
    expect(json.spec.syncPolicy.syncOptions).toEqual(['CreateNamespace=true', 'ServerSideApply=true']);
    // only the aggregated ClusterRoles' rules, which the controller manager fills in, are ignored
    expect(json.spec.ignoreDifferences).toEqual([{ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole',
      jqPathExpressions: ['select(.aggregationRule != null) | .rules'] }]);
  });

  test('props reach the values: exclusions (sorted, kube-system kept), replicas, name and namespace', () => {
    const { app } = kyverno({ name: 'policy-engine', namespace: 'policy', excludedNamespaces: ['media', 'argocd'], admissionControllerReplicas: 2 });
    expect(app.valuesFile).toBe('values/policy-engine.yaml');
    expect(app.values).toEqual({
      admissionController: { replicas: 2 },
      config: { excludeKyvernoNamespace: true, webhooks: { namespaceSelector: { matchExpressions: [
        { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['argocd', 'kube-system', 'media'] }] } } },
      features: { excludeBootstrapResources: { enabled: true } },
    });
  });

  test('throws for a chart version the values are not written for, and for 0 replicas', () => {
    expect(() => kyverno({ chartVersion: '3.8.0' })).toThrow('kyverno: chart version \'3.8.0\' differs from \'3.9.0\', the version the generated ' +
      'values are written for. Review lib/constructs/delivery/kyverno-values.ts against the new chart and update KYVERNO_CHART.');
    expect(() => kyverno({ admissionControllerReplicas: 0 })).toThrow('kyverno values: admissionControllerReplicas must be an integer of at least 1, got 0.');
  });

  test('kyvernoValues throws when the exclusions would drop kube-system (they replace the chart\'s default list)', () => {
    expect(() => kyvernoValues({ excludedNamespaces: ['argocd'], admissionControllerReplicas: 1 }))
      .toThrow('kyverno values: excludedNamespaces must include \'kube-system\' (it replaces the chart\'s default list), got ["argocd"].');
  });
});

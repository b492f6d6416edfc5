import { container, deployment, podSpec, problemsOf, problemsOfObjects } from './util';

const configMap = (extra: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' }, ...extra });

test('fails on an unknown field, like strict field validation, and suggests the closest known field', () => {
  expect(problemsOfObjects(deployment(podSpec({ containres: [] })))).toEqual([
    "m.yaml: Deployment apps/app: spec.template.spec.containres: unknown field 'containres': apps/v1 Deployment has no such field "
      + "and the API server's strict field validation rejects it; did you mean 'containers'? remove or rename it (39 known fields here)",
  ]);
});

test('fails on a missing required field', () => {
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'a' }, spec: { ports: [{ name: 'http' }] } };
  expect(problemsOfObjects(svc)).toEqual(['m.yaml: Service a/s: spec.ports[0].port: required field is missing; v1 Service needs it. Set it']);
});

test('fails on a wrong type: a number in a string map', () => {
  expect(problemsOfObjects(configMap({ data: { port: 80 } }))).toEqual([
    'm.yaml: ConfigMap a/c: data.port: 80 is an integer but must be a string; quote it in the generator (String(value))',
  ]);
});

test('fails on a malformed quantity', () => {
  const resources = { requests: { cpu: 'lots', memory: '1Gi' }, limits: { memory: '2Gi' } };
  expect(problemsOfObjects(deployment(podSpec({ containers: [container({ resources })] })))).toEqual([
    "m.yaml: Deployment apps/app: spec.template.spec.containers[0].resources.requests.cpu: 'lots' is not a Kubernetes quantity; "
      + "write a number with an optional suffix, such as '250m', '1.5', '64Mi' or '2Gi'",
  ]);
});

test('accepts quantities and IntOrString as numbers or strings', () => {
  const resources = { requests: { cpu: 0.5, memory: '1Gi' }, limits: { memory: 2147483648 } };
  const spec = podSpec({ containers: [container({ resources, readinessProbe: { httpGet: { port: 'http' } }, ports: [{ containerPort: 80, name: 'http' }] })] });
  expect(problemsOfObjects(deployment(spec))).toEqual([]);
});

test('fails on status in a manifest', () => {
  expect(problemsOfObjects(configMap({ status: {} }))).toEqual([
    'm.yaml: ConfigMap a/c: status: status is written by the cluster, never by a manifest; remove it',
  ]);
});

test('fails on a kind no pinned schema defines, with the known apiVersions when there are some', () => {
  expect(problemsOfObjects(
    { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'c', namespace: 'a' } },
    { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
  )).toEqual([
    "m.yaml: Deployment a/c: apiVersion: no pinned schema defines apps/v1beta1 Deployment; did you mean apiVersion 'apps/v1'?",
    'm.yaml: Widget w: apiVersion: no pinned schema defines example.com/v1 Widget; add its CRD to scripts/crd-sources.json '
      + 'and run node scripts/generate-schemas.js',
  ]);
});

test('fails on an alpha API version', () => {
  expect(problemsOfObjects({ apiVersion: 'networking.k8s.io/v1alpha1', kind: 'ServiceCIDR', metadata: { name: 'c' }, spec: {} })).toEqual([
    'm.yaml: ServiceCIDR c: apiVersion: networking.k8s.io/v1alpha1 is an alpha API that Kubernetes 1.30 serves only behind a feature gate; '
      + 'use a GA version of ServiceCIDR',
  ]);
});

test('leaves CRD CEL rules to the API server: it evaluates none of them, rather than some', () => {
  // CNPG's Database CRD rejects `spec.name: template1` with a CEL rule; the config schema rejects the name at
  // the boundary, and the API server judges the rule. The schema check neither passes nor fails it.
  const db = { apiVersion: 'postgresql.cnpg.io/v1', kind: 'Database', metadata: { name: 'd', namespace: 'a' }, spec: { name: 'template1', owner: 'o', cluster: { name: 'c' } } };
  expect(problemsOfObjects(db)).toEqual([]);
});

test('fails on duplicate keys in a CRD list-type map', () => {
  const ext = { name: 'vector', image: { reference: 'x:1' } };
  const cluster = {
    apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', metadata: { name: 'pg', namespace: 'a' },
    spec: { instances: 1, storage: { size: '1Gi' }, resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { memory: '1Gi' } }, postgresql: { extensions: [ext, ext] } },
  };
  expect(problemsOfObjects(cluster)).toEqual([
    "m.yaml: Cluster a/pg: spec.postgresql.extensions[1]: has the same name ('vector') as item 0; the API server rejects duplicate keys in this list. "
      + 'Merge or rename them',
  ]);
});

test('fails on an unknown field in a CRD object', () => {
  const app = {
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'a', namespace: 'argocd' },
    spec: { project: 'p', destination: { namespace: 'x', server: 'https://kubernetes.default.svc' }, source: { repoURL: 'https://x', path: 'p', targetRevison: 'main' } },
  };
  expect(problemsOfObjects(app)).toEqual([
    "m.yaml: Application argocd/a: spec.source.targetRevison: unknown field 'targetRevison': argoproj.io/v1alpha1 Application has no such field and "
      + "the API server's strict field validation rejects it; did you mean 'targetRevision'? remove or rename it "
      + '(known fields here: chart, directory, helm, kustomize, name, path, plugin, ref, repoURL, tagPrefix, targetRevision)',
  ]);
});

test('checks a patch leniently: unknown fields fail, missing required fields do not', () => {
  const patch = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'up' }, spec: { template: { spec: { containers: [{ name: 'c', envv: [] }] } } } };
  expect(problemsOf({ 'k/kustomization.yaml': 'patches:\n  - path: patch.yaml\n', 'k/patch.yaml': [patch] })).toEqual([
    "k/patch.yaml: Deployment up (patch): spec.template.spec.containers[0].envv: unknown field 'envv': apps/v1 Deployment has no such field and "
      + "the API server's strict field validation rejects it; did you mean 'env'? remove or rename it (24 known fields here)",
  ]);
});

test('a PrometheusRule is checked against prometheus-operator v0.93.1, whose RE2 (?i) pattern matches either case', () => {
  const rule = (strategy: string) => ({
    apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: 'r', namespace: 'a' },
    spec: { groups: [{ name: 'g', partial_response_strategy: strategy, rules: [{ alert: 'A', expr: 'up == 0' }] }] },
  });
  expect(problemsOfObjects(rule('WARN'), rule('abort'))).toEqual([]);
  expect(problemsOfObjects(rule('ignore')).join('\n')).toMatch(/partial_response_strategy/);
});

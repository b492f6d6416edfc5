import { container, deployment, podSpec, problemsOf, problemsOfObjects } from './util';

test('fails on names that break the rule of their kind', () => {
  expect(problemsOfObjects(
    { apiVersion: 'v1', kind: 'Service', metadata: { name: '1svc', namespace: 'a' }, spec: { ports: [{ port: 80, name: 'Http' }] } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name', namespace: 'a' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } },
  )).toEqual([
    "m.yaml: Service a/1svc: metadata.name: Service name '1svc' must consist of lower case letters, digits and '-', start with a letter "
      + 'and end with a letter or digit (an RFC 1035 label); choose a valid name',
    "m.yaml: Service a/1svc: spec.ports[0].name: Service port name 'Http' must consist of lower case letters, digits and '-', and start "
      + 'and end with a letter or digit (an RFC 1123 label); rename it',
    "m.yaml: ConfigMap a/Bad_Name: metadata.name: ConfigMap name 'Bad_Name' must consist of lower case letters, digits, '-' and '.', "
      + 'and start and end with a letter or digit (an RFC 1123 subdomain); choose a valid name',
    "m.yaml: Namespace a.b: metadata.name: Namespace name 'a.b' must consist of lower case letters, digits and '-', and start and end "
      + 'with a letter or digit (an RFC 1123 label); choose a valid name',
  ]);
});

test('fails on a Job name longer than a label value and a CNPG Cluster name longer than 50', () => {
  const long = `j${'x'.repeat(63)}`;
  const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: long, namespace: 'a' }, spec: { activeDeadlineSeconds: 1, template: { spec: podSpec({ restartPolicy: 'Never' }) } } };
  const cluster = {
    apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', metadata: { name: 'p'.repeat(51), namespace: 'a' },
    spec: { instances: 1, storage: { size: '1Gi' }, resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { memory: '1Gi' } } },
  };
  expect(problemsOfObjects(job, cluster)).toEqual([
    `m.yaml: Job a/${long}: metadata.name: Job name '${long}' is 64 characters long, more than the 63 allowed; choose a valid name`,
    `m.yaml: Cluster a/${'p'.repeat(51)}: metadata.name: Cluster name '${'p'.repeat(51)}' is 51 characters long, more than the 50 allowed; choose a valid name`,
  ]);
});

test('fails on a container port name over 15 characters', () => {
  const spec = podSpec({ containers: [container({ ports: [{ containerPort: 80, name: 'metrics-endpoint' }] })] });
  expect(problemsOfObjects(deployment(spec))).toEqual([
    "m.yaml: Deployment apps/app: spec.template.spec.containers[0].ports[0].name: container port name 'metrics-endpoint' is 16 characters long, "
      + "more than the 15 an IANA service name allows; use a shorter name such as 'metrics-endpoin' or a number",
  ]);
});

test('fails on label and annotation values that are not strings, and on bad label syntax', () => {
  const cm = {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'a', labels: { 'enabled': true, 'bad key!': 'x', 'long': 'x'.repeat(64) }, annotations: { replicas: 3 } },
  };
  expect(problemsOfObjects(cm)).toEqual([
    "m.yaml: ConfigMap a/c: metadata.annotations.replicas: annotation value 3 is a number, not a string; quote it ('3') in the generator",
    "m.yaml: ConfigMap a/c: metadata.labels.enabled: label value true is a boolean, not a string; quote it ('true') in the generator",
    `m.yaml: ConfigMap a/c: metadata.labels.long: label value '${'x'.repeat(64)}' is 64 characters long, more than the 63 allowed; shorten or change it`,
    "m.yaml: ConfigMap a/c: metadata.labels['bad key!']: label key 'bad key!' must have a name part of letters, digits, '-', '_' and '.', "
      + 'starting and ending with a letter or digit; rename the label',
  ]);
});

test('fails on a namespace on a cluster-scoped object', () => {
  expect(problemsOfObjects({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a', namespace: 'default' } })).toEqual([
    "m.yaml: Namespace a: metadata.namespace: Namespace is cluster-scoped but has namespace 'default'; remove metadata.namespace",
  ]);
});

test('fails on a namespaced object without namespace in a plain file, not where kustomize sets it', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  expect(problemsOf({
    'argocd/apps/x.yaml': [cm],
    'k/kustomization.yaml': 'namespace: argocd\nresources:\n  - resources.yaml\n',
    'k/resources.yaml': [cm],
  })).toEqual([
    'argocd/apps/x.yaml: ConfigMap c: metadata.namespace: ConfigMap is namespaced but has no namespace, so it lands in whatever namespace '
      + 'the applying context uses; set metadata.namespace',
  ]);
});

test('fails on an integer beyond 2^53', () => {
  expect(problemsOf({ 'm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: a\n  generation: 9007199254740993\n' })).toEqual([
    'm.yaml: metadata.generation: integer 9007199254740993 is beyond 2^53 and changes when read as JSON; use a smaller number or a string '
      + '(Kubernetes int64 fields stay below 2^53 in practice)',
  ]);
});

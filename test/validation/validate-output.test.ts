import ddbCluster from '../../examples/ddb-cluster.config';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { formatOutputProblem, formatOutputProblems, OutputValidationError } from '../../lib/validation/output-problem';
import { assertValidOutput, validateOutput } from '../../lib/validation/validate-output';
import { container, deployment, podSpec, problemsOf, treeOf } from './util';

test('the default synthesis and the ddb-cluster example have zero problems', () => {
  for (const s of [synthesizeHomelab(REFERENCE_HOMELAB), synthesizeHomelab(ddbCluster)]) {
    expect(validateOutput(s.tree, s.validation).map(formatOutputProblem)).toEqual([]);
  }
});

test('the only reviewed exceptions: the Forgejo provisioning Job\'s access to its token Secret, and the build runner\'s BuildKit container', () => {
  const s = synthesizeHomelab(REFERENCE_HOMELAB);
  expect(s.validation).toEqual({
    secretAccessAllowList: [{ role: 'cicd/forgejo-provision',
      reason: 'stores Forgejo\'s API token in Secret \'forgejo-admin-token\' (get and patch on that name only)' }],
    podSecurityExceptions: [expect.objectContaining({ object: 'Deployment/forgejo-runner/forgejo-runner', container: 'buildkitd' })],
  });
  // Without them, the RBAC rule names the Role, and the restricted profile the container.
  const problems = validateOutput(s.tree).map(formatOutputProblem).join('\n');
  expect(problems).toContain('Role \'forgejo-provision\' can get, patch Secrets');
  expect(problems).toContain('container \'buildkitd\' has seccomp profile \'Unconfined\'');
});

test('orders problems by file, document and path, whatever the order of the tree', () => {
  const bad = deployment(podSpec({ containers: [container({ image: 'redis' })], hostNetwork: true }));
  const files = { 'b.yaml': [bad], 'a.yaml': [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, bad] };
  const reversed = new Map([...treeOf(files).entries()].reverse());
  expect(validateOutput(reversed)).toEqual(validateOutput(treeOf(files)));
  expect(validateOutput(treeOf(files)).map((p) => `${p.file} ${p.path}`)).toEqual([
    'a.yaml metadata.namespace',
    'a.yaml spec.template.spec.containers[0].image',
    'a.yaml spec.template.spec.hostNetwork',
    'b.yaml spec.template.spec.containers[0].image',
    'b.yaml spec.template.spec.hostNetwork',
  ]);
});

test('formats one line per problem: file, object, path and message', () => {
  const problems = validateOutput(treeOf({ 'bootstrap/04-forgejo.yaml': [deployment(podSpec({ containers: [container({ image: 'x' })] }), 'forgejo', 'cicd')] }));
  expect(problems).toEqual([{
    file: 'bootstrap/04-forgejo.yaml',
    object: 'Deployment/cicd/forgejo',
    path: 'spec.template.spec.containers[0].image',
    message: "container 'app': image 'x' is not pinned: without a tag it pulls :latest, which moves; use a version tag or a digest (@sha256:...)",
  }]);
  expect(formatOutputProblems(problems)).toBe([
    'The synthesized output has 1 problem:',
    "  - bootstrap/04-forgejo.yaml: Deployment cicd/forgejo: spec.template.spec.containers[0].image: container 'app': image 'x' is not pinned: "
      + 'without a tag it pulls :latest, which moves; use a version tag or a digest (@sha256:...)',
  ].join('\n'));
});

test('assertValidOutput throws every problem together', () => {
  const tree = treeOf({ 'a.yaml': [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }] });
  expect(() => assertValidOutput(tree)).toThrow(OutputValidationError);
  expect(() => assertValidOutput(tree)).toThrow(/^The synthesized output has 1 problem:\n {2}- a\.yaml: ConfigMap c: metadata\.namespace: /);
});

test('fails on kustomization references to missing files and on files the kustomization does not name', () => {
  expect(problemsOf({
    'k/kustomization.yaml': 'namespace: a\nresources:\n  - resources.yaml\n  - missing.yaml\n',
    'k/resources.yaml': [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }],
    'k/stray.yaml': [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' } }],
  })).toEqual([
    "k/kustomization.yaml: resources entry 'missing.yaml' names a file that is not in the output; kustomize build fails. Write that file or remove the entry",
    'k/stray.yaml: k/kustomization.yaml does not name this file, so kustomize ignores it; add it to resources: or patches: there, or stop writing it',
  ]);
});

test('fails on an empty manifest, invalid YAML and a document that is not an object; reads Helm values files only for secrets', () => {
  expect(problemsOf({ 'e.yaml': '', 'bad.yaml': 'a: [\n', 'list.yaml': '- a\n', 'n.yaml': 'foo: bar\n', 'values/app.yaml': 'replicas: 2\n' })).toEqual([
    'bad.yaml: invalid YAML in document 1: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1; '
      + 'fix the generator that wrote this file',
    "e.yaml: the file has no objects, and 'kubectl apply -f' fails on it with 'no objects passed to apply'; write its objects or stop writing the file",
    'list.yaml: document 1 is not a YAML mapping but a list; every document of a manifest must be one Kubernetes object',
    'n.yaml: document 1 has no apiVersion, so it is not a Kubernetes object; every manifest document needs apiVersion and kind',
  ]);
});

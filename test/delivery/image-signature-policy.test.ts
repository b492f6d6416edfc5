// ImageSignaturePolicy: the ImageValidatingPolicy it defines, its defaults, its validation, and its output against the
// pinned Kyverno v1.19.0 CRD.
import { Duration, Testing } from 'cdk8s';
import { ImageSignaturePolicy, ImageSignaturePolicyProps } from '../../lib/constructs/delivery/image-signature-policy';
import { find } from '../util';
import { problemsOfObjects } from '../validation/util';

const MINIMAL: ImageSignaturePolicyProps = {
  name: 'signed',
  validationAction: 'Deny',
  registryHosts: ['registry.lan:5000'],
  namespaceSelector: { matchLabels: { tier: 'app' } },
  publicKeySecret: { namespace: 'kyverno', name: 'cosign-public-key' },
};

function synth(props: ImageSignaturePolicyProps) {
  const chart = Testing.chart();
  const policy = new ImageSignaturePolicy(chart, 'Policy', props);
  const manifests = Testing.synth(chart);
  return { policy, manifests, json: find(manifests, 'ImageValidatingPolicy', props.name) };
}

function fails(overrides: Partial<ImageSignaturePolicyProps>): () => void {
  return () => new ImageSignaturePolicy(Testing.chart(), 'Policy', { ...MINIMAL, ...overrides });
}

describe('ImageSignaturePolicy', () => {
  test('defaults: Fail, 10 s, no plain HTTP, no credentials; the key by k8s:// reference, no transparency log, no digest mutation', () => {
    // WHEN
    const { policy, json } = synth(MINIMAL);
    // THEN the attributes
    expect(policy.failurePolicy).toBe('Fail');
    expect(policy.timeout.toSeconds()).toBe(10);
    expect(policy.allowInsecureRegistry).toBe(false);
    expect(policy.registryCredentialSecrets).toEqual([]);
    expect(policy.publicKeyRef).toBe('k8s://kyverno/cosign-public-key');
    // and the object: cluster-scoped policies.kyverno.io/v1, common labels
    expect(json.apiVersion).toBe('policies.kyverno.io/v1');
    expect(json.metadata.namespace).toBeUndefined();
    expect(json.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'homelab-gitops', 'app.kubernetes.io/part-of': 'homelab' });
    expect(json.spec.validationActions).toEqual(['Deny']);
    expect(json.spec.failurePolicy).toBe('Fail');
    expect(json.spec.webhookConfiguration).toEqual({ timeoutSeconds: 10 });
    expect(json.spec.credentials).toEqual({});
    expect(json.spec.attestors).toEqual([{ name: 'cosign', cosign: { key: { kms: 'k8s://kyverno/cosign-public-key' }, ctlog: { insecureIgnoreTlog: true } } }]);
    expect(json.spec.validationConfigurations).toEqual({ mutateDigest: false, verifyDigest: false, required: true });
    expect(json.spec.evaluation).toEqual({ background: { enabled: false } });
    expect(json.spec.matchConstraints.resourceRules).toEqual([{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }]);
  });

  test('every prop reaches the object; hosts become <host>/* globs, sorted and without duplicates', () => {
    // GIVEN
    const props: Required<ImageSignaturePolicyProps> = {
      name: 'audit-signed',
      validationAction: 'Audit',
      failurePolicy: 'Ignore',
      registryHosts: ['registry.lan:5000', 'forgejo.example', 'registry.lan:5000'],
      namespaceSelector: {
        matchLabels: { b: '2', a: '1' },
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'argocd'] }, { key: 'x', operator: 'Exists' }],
      },
      publicKeySecret: { namespace: 'policy', name: 'homelab-cosign' },
      timeout: Duration.seconds(25),
      allowInsecureRegistry: true,
      registryCredentialSecrets: ['registry-read'],
    };
    // WHEN
    const { policy, json } = synth(props);
    // THEN
    expect(policy.registryHosts).toEqual(['forgejo.example', 'registry.lan:5000']);
    expect(json.spec.validationActions).toEqual(['Audit']);
    expect(json.spec.failurePolicy).toBe('Ignore');
    expect(json.spec.webhookConfiguration).toEqual({ timeoutSeconds: 25 });
    expect(json.spec.matchImageReferences).toEqual([{ glob: 'forgejo.example/*' }, { glob: 'registry.lan:5000/*' }]);
    expect(json.spec.matchConstraints.namespaceSelector).toEqual({
      matchLabels: { a: '1', b: '2' },
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['argocd', 'kube-system'] }, { key: 'x', operator: 'Exists' }],
    });
    expect(json.spec.attestors[0].cosign.key).toEqual({ kms: 'k8s://policy/homelab-cosign' });
    expect(json.spec.credentials).toEqual({ allowInsecureRegistry: true, secrets: ['registry-read'] });
    expect(json.spec.validations).toEqual([{
      expression: '(images.containers + images.initContainers + images.ephemeralContainers).all(image, verifyImageSignatures(image, [attestors.cosign]) > 0)',
      message: 'every image from forgejo.example, registry.lan:5000 must carry a cosign signature made with the homelab\'s key (public key: ' +
        'Secret policy/homelab-cosign, key cosign.pub). Sign it in CI by digest (cosign sign --key ... <image>@sha256:...) and deploy that digest.',
    }]);
  });

  test('the output is valid against the pinned ImageValidatingPolicy CRD', () => {
    const { manifests } = synth({ ...MINIMAL, registryCredentialSecrets: ['r'], allowInsecureRegistry: true });
    expect(problemsOfObjects(...manifests)).toEqual([]);
  });

  test('throws for a bad name, no registry, a host with a scheme or path, an empty selector, values on the wrong operator, a bad timeout', () => {
    expect(fails({ name: 'Signed' })).toThrow(
      'test/Policy: \'name\' must consist of lower case letters, digits, \'-\' and \'.\', and start and end with a letter or digit, got \'Signed\'.');
    expect(fails({ registryHosts: [] })).toThrow(
      'test/Policy: \'registryHosts\' is empty, so the policy would check no image. Name the registry whose images must be signed.');
    for (const host of ['http://registry.lan', 'registry.lan/team', 'registry.*']) {
      expect(fails({ registryHosts: [host] })).toThrow(`test/Policy: 'registryHosts' entry '${host}' is not a registry host such as 'registry.lan' or ` +
        '\'forgejo-http.cicd.svc.cluster.local:3000\' (no scheme, no path, no wildcard).');
    }
    expect(fails({ namespaceSelector: {} })).toThrow('test/Policy: \'namespaceSelector\' is empty, so the policy would check every namespace, ' +
      'kube-system\'s and Kyverno\'s pods included. Select the namespaces by label, or exclude the platform ones with a NotIn requirement.');
    expect(fails({ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'NotIn' }] } })).toThrow(
      'test/Policy: \'namespaceSelector\' requirement on \'a\' with operator \'NotIn\' needs values.');
    expect(fails({ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] } })).toThrow(
      'test/Policy: \'namespaceSelector\' requirement on \'a\' with operator \'Exists\' takes no values.');
    expect(fails({ publicKeySecret: { namespace: 'Kyverno', name: 'k' } })).toThrow(
      'test/Policy: \'publicKeySecret.namespace\' must consist of lower case letters, digits and \'-\', and start and end with a letter or digit, got \'Kyverno\'.');
    expect(fails({ timeout: Duration.seconds(31) })).toThrow('test/Policy: \'timeout\' must be a whole number of seconds from 1 to 30, got 31.');
    expect(fails({ timeout: Duration.millis(1500) })).toThrow('test/Policy: \'timeout\' must be a whole number of seconds from 1 to 30, got 1.5.');
  });
});

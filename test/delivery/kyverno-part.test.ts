// The Kyverno part of the reference homelab: the two Applications and their waves, the values' exclusions, the two
// policies, and which policy a pod meets in each namespace (Deny only in the app tier, Audit elsewhere, nothing where
// Kyverno must never be in the way), read from the rendered objects the way the API server and Kyverno combine them.
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { DeliveryConfig } from '../../lib/config/delivery/types';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { KyvernoPart } from '../../lib/homelab/delivery/kyverno';
import { APP_TIER_LABEL } from '../../lib/shared/delivery-layout';
import { FIRST_APP_TIER_WAVE, LAST_SYNC_WAVE } from '../../lib/shared/sync-waves';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { tree } from '../constructs/argocd/util';
import { problemsOfObjects } from '../validation/util';

const DELIVERY = REFERENCE_HOMELAB.delivery!;

function withKyverno(kyverno: DeliveryConfig['kyverno'], more: Partial<DeliveryConfig> = {}): HomelabConfig {
  return { ...REFERENCE_HOMELAB, delivery: { ...DELIVERY, ...more, kyverno } };
}

function partOf(config: HomelabConfig = REFERENCE_HOMELAB) {
  const argocd = tree(config);
  const part = argocd.delivery.find((p) => 'denyPolicy' in p) as KyvernoPart;
  const files = argocd.renderFiles();
  const doc = (file: string) => (files.get(file) as Record<string, any>[])[0];
  return { argocd, part, files, doc };
}

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };

/** Whether a namespace with `labels` matches a Kubernetes label selector (every label and every requirement). */
function selects(selector: Selector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e) => {
    switch (e.operator) {
      case 'In': return k(e.key) !== undefined && e.values!.includes(k(e.key)!);
      case 'NotIn': return k(e.key) === undefined || !e.values!.includes(k(e.key)!);
      case 'Exists': return k(e.key) !== undefined;
      case 'DoesNotExist': return k(e.key) === undefined;
      default: throw new Error(`operator ${e.operator}`);
    }
  });
  function k(key: string): string | undefined {
    return labels[key];
  }
  return byLabels && byExpressions;
}

/**
 * The validation actions a pod meets in each namespace: Kyverno's webhook sees the namespace only when the chart's
 * `config.webhooks.namespaceSelector` selects it and it is not Kyverno's own (`excludeKyvernoNamespace`); then each policy
 * whose `matchConstraints.namespaceSelector` selects it applies (pkg/controllers/webhook/validating.go:371-383: the two
 * selectors are ANDed).
 */
function admissionMatrix(
  values: any, policies: any[], kyvernoNamespace: string, namespaces: ReadonlyMap<string, Record<string, string>>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [ns, labels] of [...namespaces].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const all = { 'kubernetes.io/metadata.name': ns, ...labels };
    const seen = ns !== kyvernoNamespace && selects(values.config.webhooks.namespaceSelector, all);
    const applying = seen ? policies.filter((p) => selects(p.spec.matchConstraints.namespaceSelector, all)) : [];
    out[ns] = applying.flatMap((p) => p.spec.validationActions).sort();
  }
  return out;
}

/** The namespaces of the reference tree, with the app tier labelled as the Rollouts part labels it. */
function referenceNamespaces(part: ReturnType<typeof partOf>): Map<string, Record<string, string>> {
  const namespaces = new Map<string, Record<string, string>>();
  for (const ns of part.argocd.project.resource.toJson().spec.destinations.map((d: { namespace: string }) => d.namespace)) namespaces.set(ns, {});
  for (const [name, app] of Object.entries(DELIVERY.apps!)) namespaces.set(app.namespace ?? name, { [APP_TIER_LABEL.key]: APP_TIER_LABEL.value });
  return namespaces;
}

/** What the tiers must meet: the app tier exactly Deny, the never-seen namespaces nothing, every other one exactly Audit. */
function tierViolations(matrix: Record<string, string[]>, appTier: readonly string[], neverSeen: readonly string[]): string[] {
  return Object.entries(matrix).flatMap(([ns, actions]) => {
    const want = appTier.includes(ns) ? ['Deny'] : neverSeen.includes(ns) ? [] : ['Audit'];
    return JSON.stringify(actions) === JSON.stringify(want) ? [] : [`${ns}: ${JSON.stringify(actions)}, want ${JSON.stringify(want)}`];
  });
}

const APP_TIER = ['hello', 'status'];
const NEVER_SEEN = ['argocd', 'cicd', 'cnpg-system', 'ddb', 'kube-system', 'kyverno', 'longhorn-system'];

describe('the Kyverno part of the reference homelab', () => {
  test('Applications: kyverno (chart 3.9.0, the last platform wave, server-side apply) and kyverno-policies after it and the Secrets, in the app tier\'s first wave', () => {
    const { argocd, part } = partOf();
    const kyverno = argocd.applications.get('kyverno')!;
    const policies = argocd.applications.get('kyverno-policies')!;
    expect(kyverno).toBe(part.kyverno);
    expect(kyverno.syncWave).toBe(LAST_SYNC_WAVE);
    expect(kyverno.appTier).toBe(false);
    expect(kyverno.syncOptions).toEqual(['CreateNamespace', 'ServerSideApply']);
    expect(kyverno.sources).toEqual([{ kind: 'helm-chart', repoURL: 'https://kyverno.github.io/kyverno/', chart: 'kyverno', version: '3.9.0',
      valueFiles: ['k8s/generated/values/kyverno.yaml'] }]);
    expect(policies.dependsOn.map((a) => a.name)).toEqual(['kyverno', 'sops-secrets']);
    expect(policies.syncWave).toBe(FIRST_APP_TIER_WAVE);
    expect(policies.appTier).toBe(true);
    expect(policies.sources).toEqual([{ kind: 'git-path', path: 'k8s/generated/delivery/kyverno-policies' }]);
  });

  test('a Kyverno outage holds only the app tier: nothing of the platform comes after kyverno, every app after its policies', () => {
    const { argocd } = partOf();
    const kyverno = argocd.applications.get('kyverno')!;
    const policies = argocd.applications.get('kyverno-policies')!;
    const all = [...argocd.applications.values()];
    const platform = all.filter((a) => !a.appTier);
    expect(platform.filter((a) => a.syncWave > kyverno.syncWave)).toEqual([]);
    expect(all.filter((a) => a.syncWave > kyverno.syncWave).map((a) => a.name).sort()).toEqual(['kyverno-policies', ...APP_TIER].sort());
    for (const name of APP_TIER) {
      const app = argocd.applications.get(name)!;
      expect(app.appTier).toBe(true);
      expect(app.dependsOn).toContain(policies);
      expect(app.syncWave).toBeGreaterThan(policies.syncWave);
    }
  });

  test('the AppProject allows what the two Applications apply, by construction: the policies, the chart\'s CRDs and RBAC, the namespace', () => {
    const { argocd } = partOf();
    const spec = argocd.project.resource.toJson().spec;
    expect(spec.clusterResourceWhitelist).toEqual(expect.arrayContaining([
      { group: 'policies.kyverno.io', kind: 'ImageValidatingPolicy' },
      { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
      { group: '', kind: 'Namespace' },
    ]));
    expect(argocd.applications.get('kyverno-policies')!.clusterResources).toEqual([{ group: 'policies.kyverno.io', kind: 'ImageValidatingPolicy' }]);
    expect(spec.destinations).toContainEqual({ namespace: 'kyverno', server: 'https://kubernetes.default.svc' });
    expect(spec.sourceRepos).toContain('https://kyverno.github.io/kyverno/');
  });

  test('values: the webhooks never see kube-system, Argo CD\'s or the Phase-0 namespaces, nor Kyverno\'s own; Fail webhooks skip Nodes and CSRs', () => {
    const { doc, part } = partOf();
    expect(doc('values/kyverno.yaml')).toEqual({
      admissionController: { replicas: 3 },
      config: {
        excludeKyvernoNamespace: true,
        webhooks: { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn',
          values: ['argocd', 'cicd', 'cnpg-system', 'ddb', 'kube-system', 'longhorn-system'] }] } },
      },
      features: { excludeBootstrapResources: { enabled: true } },
    });
    expect(part.excludedNamespaces).toEqual(NEVER_SEEN);
  });

  test('policies: the key by reference, both registry names, Deny/Fail for the app-tier label, Audit/Ignore elsewhere', () => {
    const { doc } = partOf();
    const deny = doc('delivery/kyverno-policies/homelab-signed-images-app-tier.yaml');
    const audit = doc('delivery/kyverno-policies/homelab-signed-images-audit.yaml');
    for (const p of [deny, audit]) {
      expect(p.spec.attestors[0].cosign).toEqual({ key: { kms: 'k8s://kyverno/cosign-public-key' }, ctlog: { insecureIgnoreTlog: true } });
      expect(p.spec.matchImageReferences).toEqual([{ glob: 'forgejo-http.cicd.svc.cluster.local:3000/*' }, { glob: 'forgejo.homelab.example/*' }]);
      expect(p.spec.credentials).toEqual({ allowInsecureRegistry: true, secrets: ['forgejo-registry-read'] });
      expect(p.spec.webhookConfiguration).toEqual({ timeoutSeconds: 15 });
      expect(p.spec.validationConfigurations.mutateDigest).toBe(false);
    }
    expect([deny.spec.validationActions, deny.spec.failurePolicy]).toEqual([['Deny'], 'Fail']);
    expect(deny.spec.matchConstraints.namespaceSelector).toEqual({ matchLabels: { 'homelab.dev/tier': 'app' } });
    expect([audit.spec.validationActions, audit.spec.failurePolicy]).toEqual([['Audit'], 'Ignore']);
    expect(audit.spec.matchConstraints.namespaceSelector).toEqual({ matchExpressions: [
      { key: 'homelab.dev/tier', operator: 'NotIn', values: ['app'] },
      { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: NEVER_SEEN },
    ] });
  });

  test('in every namespace a pod meets exactly Deny (app tier), exactly Audit (elsewhere) or nothing (kube-system, Kyverno, Argo CD, Phase 0)', () => {
    // GIVEN the rendered values and policies, and every namespace of the project plus the labelled app tier
    const part = partOf();
    const values = part.doc('values/kyverno.yaml');
    const policies = [part.doc('delivery/kyverno-policies/homelab-signed-images-app-tier.yaml'),
      part.doc('delivery/kyverno-policies/homelab-signed-images-audit.yaml')];
    const namespaces = referenceNamespaces(part);
    // WHEN
    const matrix = admissionMatrix(values, policies, 'kyverno', namespaces);
    // THEN
    expect(matrix.monitoring).toEqual(['Audit']);
    expect(matrix.hello).toEqual(['Deny']);
    expect(matrix['kube-system']).toEqual([]);
    expect(tierViolations(matrix, APP_TIER, NEVER_SEEN)).toEqual([]);
  });

  test('fails when the Deny/Audit split is broken: a Deny policy that selects everything, an Audit policy that also covers the app tier', () => {
    // GIVEN the rendered objects, then each broken on purpose
    const part = partOf();
    const values = part.doc('values/kyverno.yaml');
    const deny = part.doc('delivery/kyverno-policies/homelab-signed-images-app-tier.yaml');
    const audit = part.doc('delivery/kyverno-policies/homelab-signed-images-audit.yaml');
    const namespaces = referenceNamespaces(part);
    const broken = (p: any, selector: Selector) =>
      ({ ...p, spec: { ...p.spec, matchConstraints: { ...p.spec.matchConstraints, namespaceSelector: selector } } });
    // THEN a Deny for every namespace the webhook sees locks out the platform
    const denyEverywhere = tierViolations(admissionMatrix(values, [broken(deny, {}), audit], 'kyverno', namespaces), APP_TIER, NEVER_SEEN);
    expect(denyEverywhere).toContain('monitoring: ["Audit","Deny"], want ["Audit"]');
    // and an Audit without the app-tier requirement doubles up on the app tier
    const auditOnNames = broken(audit, { matchExpressions: [audit.spec.matchConstraints.namespaceSelector.matchExpressions[1]] });
    const auditTier = tierViolations(admissionMatrix(values, [deny, auditOnNames], 'kyverno', namespaces), APP_TIER, NEVER_SEEN);
    expect(auditTier).toEqual(['hello: ["Audit","Deny"], want ["Deny"]', 'status: ["Audit","Deny"], want ["Deny"]']);
    // and values that no longer exclude Argo CD expose it to the Audit policy's webhook... unless the policy excludes it too
    const valuesWithoutArgo = { config: { webhooks: { namespaceSelector: {
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] } } } };
    const auditWithoutExclusions = broken(audit, { matchExpressions: [audit.spec.matchConstraints.namespaceSelector.matchExpressions[0]] });
    expect(tierViolations(admissionMatrix(valuesWithoutArgo, [deny, auditWithoutExclusions], 'kyverno', namespaces), APP_TIER, NEVER_SEEN))
      .toEqual(expect.arrayContaining(['argocd: ["Audit"], want []', 'cicd: ["Audit"], want []']));
  });

  test('the policies and the Applications are valid against the pinned CRDs', () => {
    const { files } = partOf();
    const objects = ['delivery/kyverno-policies/homelab-signed-images-app-tier.yaml', 'delivery/kyverno-policies/homelab-signed-images-audit.yaml',
      'argocd/apps/kyverno.yaml', 'argocd/apps/kyverno-policies.yaml'].flatMap((f) => files.get(f) as unknown[]);
    expect(objects).toHaveLength(4);
    expect(problemsOfObjects(...objects)).toEqual([]);
  });

  test('the Secrets it needs are references in Kyverno\'s namespace: the public key (cosign.pub) and the registry credential', () => {
    const { argocd } = partOf();
    expect(argocd.secretReferences.filter((s) => s.namespace === 'kyverno')).toEqual([
      { namespace: 'kyverno', name: 'cosign-public-key', keys: ['cosign.pub'],
        usedBy: 'ImageValidatingPolicy homelab-signed-images-app-tier, homelab-signed-images-audit' },
      { namespace: 'kyverno', name: 'forgejo-registry-read', keys: ['.dockerconfigjson'],
        usedBy: 'Kyverno (registry forgejo-http.cicd.svc.cluster.local:3000, forgejo.homelab.example)' },
    ]);
  });

  test('the config reaches the output: failure policy, timeout, extra exclusions, replicas, anonymous registry, plain HTTP off, key Secret', () => {
    // WHEN
    const config = withKyverno({ failurePolicy: 'Ignore', timeoutSeconds: 20, excludedNamespaces: ['media'], admissionControllerReplicas: 1,
      registryPullSecret: null, allowInsecureRegistry: false, namespace: 'policy' }, { signing: { publicKeySecret: 'homelab-cosign' } });
    const { argocd, doc, part } = partOf(config);
    const deny = doc('delivery/kyverno-policies/homelab-signed-images-app-tier.yaml');
    const audit = doc('delivery/kyverno-policies/homelab-signed-images-audit.yaml');
    // THEN
    expect(deny.spec.failurePolicy).toBe('Ignore');
    expect(audit.spec.failurePolicy).toBe('Ignore');
    expect([deny.spec.webhookConfiguration, audit.spec.webhookConfiguration]).toEqual([{ timeoutSeconds: 20 }, { timeoutSeconds: 20 }]);
    expect(deny.spec.credentials).toEqual({});
    expect(deny.spec.attestors[0].cosign.key).toEqual({ kms: 'k8s://policy/homelab-cosign' });
    expect(doc('values/kyverno.yaml').admissionController).toEqual({ replicas: 1 });
    expect(doc('values/kyverno.yaml').config.webhooks.namespaceSelector.matchExpressions[0].values).toContain('media');
    expect(audit.spec.matchConstraints.namespaceSelector.matchExpressions[1].values).toEqual(expect.arrayContaining(['media', 'policy']));
    expect(part.kyverno.namespace).toBe('policy');
    expect(argocd.secretReferences.filter((s) => s.namespace === 'policy').map((s) => `${s.name}:${s.keys.join(',')}`)).toEqual(['homelab-cosign:cosign.pub']);
  });

  test('an explicit pull host replaces Forgejo\'s in-cluster Service name in the image references', () => {
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, delivery: { ...DELIVERY, registry: { ...DELIVERY.registry, pullHost: 'registry.lan:5000' } } };
    const { doc } = partOf(config);
    expect(doc('delivery/kyverno-policies/homelab-signed-images-app-tier.yaml').spec.matchImageReferences)
      .toEqual([{ glob: 'forgejo.homelab.example/*' }, { glob: 'registry.lan:5000/*' }]);
  });

  test('Forgejo\'s isolated namespace lets Kyverno\'s admission controller fetch signatures; an outside pull host needs no such flow', () => {
    // WHEN the reference homelab (pull host: Forgejo's Service) and one whose pods pull from another registry
    const flowsOf = (config: HomelabConfig) => synthesizeHomelab(config).bootstrap.network!.flows
      .filter((f) => f.from.kind === 'selected-pods' && f.from.namespace === 'kyverno');
    // THEN
    expect(flowsOf(REFERENCE_HOMELAB)).toEqual([{
      from: { kind: 'selected-pods', name: 'kyverno/kyverno-admission-controller', namespace: 'kyverno',
        podSelector: { 'app.kubernetes.io/component': 'admission-controller', 'app.kubernetes.io/instance': 'kyverno' } },
      to: expect.objectContaining({ kind: 'pods', namespace: 'cicd', name: 'cicd/forgejo' }),
      ports: [{ port: 3000, name: 'http' }],
      // Forgejo's allow policy admits it; Kyverno's namespace is not isolated, so nothing restricts its egress
      ingressPolicy: 'cicd/allow-forgejo',
      egressPolicy: undefined,
      reason: 'ImageValidatingPolicy homelab-signed-images-app-tier, homelab-signed-images-audit: signatures of ' +
        'forgejo-http.cicd.svc.cluster.local:3000, forgejo.homelab.example',
    }]);
    expect(flowsOf({ ...REFERENCE_HOMELAB, delivery: { ...DELIVERY, registry: { ...DELIVERY.registry, pullHost: 'registry.lan:5000' } } })).toEqual([]);
  });

  test('without a delivery section there is no Kyverno', () => {
    const { delivery: _, ...withoutDelivery } = REFERENCE_HOMELAB;
    const argocd = tree(withoutDelivery);
    expect(argocd.applications.has('kyverno')).toBe(false);
    expect(argocd.applications.has('kyverno-policies')).toBe(false);
  });
});

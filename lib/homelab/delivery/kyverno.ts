/**
 * The Kyverno part of the delivery (see lib/config/delivery/kyverno.ts): Kyverno from its chart, and the two signature
 * policies that admit only images signed with the homelab's cosign key. `Deny` (failure policy from config, `Fail` by
 * default) in the app tier, `Audit` (`Ignore`) in every other namespace that Kyverno may see.
 *
 * Why this cannot lock out the bring-up or Kyverno itself:
 * - The `Deny` policy selects namespaces by the app-tier label only, which the Rollouts part puts on the app namespaces:
 *   platform and Phase-0 pods are never sent to a webhook that can refuse them.
 * - The `Audit` policy never refuses (`validationActions: [Audit]`), and with `failurePolicy: Ignore` the API server
 *   admits the pod when Kyverno does not answer in time.
 * - Excluded from every Kyverno webhook (chart values `config.webhooks.namespaceSelector`, ANDed into each policy's
 *   webhook): kube-system, Kyverno's own namespace (the chart's `excludeKyvernoNamespace`, so Kyverno's pods restart while
 *   its webhooks are registered with Fail), Argo CD's namespace, every Phase-0 namespace (`namespaces`, Longhorn's) and
 *   `delivery.kyverno.excludedNamespaces`.
 * - `features.excludeBootstrapResources`: Fail webhooks skip Nodes and CSRs, so a cold start can register nodes.
 * With all of Kyverno down, the API server still calls the registered webhooks (Kyverno's watchdog only rebuilds them
 * from a running controller, pkg/controllers/webhook/controller.go:414-476), so the app tier's pods wait for Kyverno:
 * that is the point of `Fail` there, and nothing else waits.
 */
import { DELIVERY_APPLICATIONS } from '../../shared/application-names';
import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { HomelabApplication } from '../../constructs/argocd/homelab-application';
import { ImageSignaturePolicy } from '../../constructs/delivery/image-signature-policy';
import { KyvernoApplication } from '../../constructs/delivery/kyverno-application';
import { NAMESPACE_NAME_LABEL } from '../../constructs/delivery/kyverno-values';
import { sortKeys } from '../../constructs/temporal/temporal-values';
import { APP_TIER_LABEL, DELIVERY_DIST } from '../../shared/delivery-layout';
import { COSIGN_PUBLIC_KEY_KEY } from '../../shared/kyverno-chart';
import { podSecurityNamespaceMetadata } from '../../shared/pod-security';
import type { ForgejoEndpoint } from '../../shared/git-urls';
import type { NetworkFlow } from '../../shared/network';
import { GENERATED_APPLICATIONS } from '../validate-argocd-config';
import { appTierWaveAfter, DeliveryContext, DeliveryPart, DeliverySecretReference, requiredApplication, waveBefore } from './parts';

/** Name of the Application that installs Kyverno. */
export const KYVERNO_APPLICATION = DELIVERY_APPLICATIONS.kyverno;

/** Name of the Application of the signature policies: app-tier Applications wait for it. */
export const KYVERNO_POLICIES_APPLICATION = DELIVERY_APPLICATIONS.kyvernoPolicies;

/** The folder of the policies, relative to `dist/`. */
export const KYVERNO_POLICIES_DIST = `${DELIVERY_DIST.controllers}/${KYVERNO_POLICIES_APPLICATION}`;

/** Names of the two policies. */
export const SIGNATURE_POLICY_NAMES = { deny: 'homelab-signed-images-app-tier', audit: 'homelab-signed-images-audit' } as const;

/** The Kyverno part's Applications and policies, for tests and other parts. */
export interface KyvernoPart extends DeliveryPart {
  readonly kyverno: KyvernoApplication;
  readonly policiesApplication: HomelabApplication;
  readonly denyPolicy: ImageSignaturePolicy;
  readonly auditPolicy: ImageSignaturePolicy;
  /** Namespaces no Kyverno webhook sees, Kyverno's own included, sorted. */
  readonly excludedNamespaces: readonly string[];
  /** Whether the pods' registry (the pull host) is Forgejo's in-cluster Service, which Kyverno then fetches signatures from. */
  readonly pullsFromForgejo: boolean;
}

/** Whether `part` is the Kyverno part (the parts are assembled as plain `DeliveryPart`s). */
export function isKyvernoPart(part: DeliveryPart): part is KyvernoPart {
  return 'denyPolicy' in part && 'kyverno' in part;
}

/**
 * The connection Kyverno opens to verify a signature: its admission controller (the only component that evaluates the
 * policies at admission, since background scans are off) to Forgejo's HTTP port, where the registry lives. In an
 * isolated Forgejo namespace nothing else lets it in. The chart labels those pods `app.kubernetes.io/component:
 * admission-controller` and `app.kubernetes.io/instance: <release>` (chart 3.9.0 `templates/admission-controller/_helpers.tpl`,
 * `templates/_helpers/_labels.tpl`).
 */
export function kyvernoRegistryFlows(parts: readonly DeliveryPart[], forgejo: ForgejoEndpoint): NetworkFlow[] {
  return parts.filter(isKyvernoPart).filter((p) => p.pullsFromForgejo).map((p) => ({
    from: {
      kind: 'selected-pods', name: `${p.kyverno.namespace}/kyverno-admission-controller`, namespace: p.kyverno.namespace,
      podSelector: { 'app.kubernetes.io/component': 'admission-controller', 'app.kubernetes.io/instance': p.kyverno.name },
    },
    to: forgejo.peer,
    ports: [{ port: forgejo.httpPort, name: 'http' }],
    reason: `ImageValidatingPolicy ${p.denyPolicy.name}, ${p.auditPolicy.name}: signatures of ${p.denyPolicy.registryHosts.join(', ')}`,
  }));
}

export function defineKyverno(scope: Construct, ctx: DeliveryContext): KyvernoPart {
  const { config, delivery } = ctx;
  const settings = delivery.kyverno;
  const namespace = settings.namespace;
  const base = { project: ctx.project, repo: ctx.repo };
  const sops = requiredApplication(ctx, GENERATED_APPLICATIONS.sopsSecrets, `Application '${KYVERNO_POLICIES_APPLICATION}'`);

  // Argo CD's namespace is the project's; Phase 0 owns the declared namespaces and Longhorn's.
  const neverSeen = [...new Set(['kube-system', ctx.project.namespace, ...Object.keys(config.namespaces), config.longhorn.namespace,
    ...settings.excludedNamespaces])].filter((ns) => ns !== namespace).sort();

  // The policies open the app tier: they sit in its first wave, and everything that must pass them after it. Kyverno
  // itself sits in the latest wave before them, which is the platform's last: nothing of the platform waits for it,
  // so an install that never becomes healthy holds the app tier (which must not run unverified) and nothing else.
  const policiesWave = appTierWaveAfter(`Application '${KYVERNO_POLICIES_APPLICATION}'`, [sops]);
  const kyverno = new KyvernoApplication(scope, 'Kyverno', {
    ...base,
    name: KYVERNO_APPLICATION,
    namespace,
    chartVersion: settings.chartVersion,
    excludedNamespaces: neverSeen,
    admissionControllerReplicas: settings.admissionControllerReplicas,
    // Kyverno needs nothing of the tree to start; its policies need the key Secret (below).
    syncWave: waveBefore(`Application '${KYVERNO_APPLICATION}'`, policiesWave, []),
    // Third-party manifests: enforce baseline, warn on restricted (like the catalog's other charts).
    managedNamespaceMetadata: podSecurityNamespaceMetadata('baseline', 'restricted'),
  });

  // The in-cluster pull name is what the pods' images say; the push name is what CI signs against from outside.
  const forgejoHost = new URL(ctx.forgejo.inClusterHttpUrl).host;
  const pullHost = delivery.registry.pullHost ?? forgejoHost;
  const registryHosts = [...new Set([pullHost, delivery.registry.pushHost])].sort();
  const publicKeySecret = { namespace, name: delivery.signing.publicKeySecret };
  const credentials = {
    allowInsecureRegistry: settings.allowInsecureRegistry,
    registryCredentialSecrets: settings.registryPullSecret === null ? [] : [settings.registryPullSecret],
    publicKeySecret,
    registryHosts,
    timeout: Duration.seconds(settings.timeoutSeconds),
  };
  const policies = new Construct(scope, 'Policies');
  const denyPolicy = new ImageSignaturePolicy(policies, 'AppTier', {
    ...credentials,
    name: SIGNATURE_POLICY_NAMES.deny,
    validationAction: 'Deny',
    failurePolicy: settings.failurePolicy,
    namespaceSelector: { matchLabels: { [APP_TIER_LABEL.key]: APP_TIER_LABEL.value } },
  });
  const auditPolicy = new ImageSignaturePolicy(policies, 'Elsewhere', {
    ...credentials,
    name: SIGNATURE_POLICY_NAMES.audit,
    validationAction: 'Audit',
    // Audit never refuses a pod, so it must never refuse one by failing either.
    failurePolicy: 'Ignore',
    namespaceSelector: {
      matchExpressions: [
        // Not the app tier (the Deny policy's), and not a namespace Kyverno must never see: the chart excludes those from
        // every webhook already; saying it here keeps the policy right on its own.
        { key: APP_TIER_LABEL.key, operator: 'NotIn', values: [APP_TIER_LABEL.value] },
        { key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: [...neverSeen, namespace] },
      ],
    },
  });

  const policiesApplication = new HomelabApplication(policies, 'Application', {
    ...base,
    name: KYVERNO_POLICIES_APPLICATION,
    sources: [{ kind: 'git-path', path: ctx.repo.distFile(KYVERNO_POLICIES_DIST) }],
    // The policies are cluster-scoped; the destination is Kyverno's namespace, where the Secrets they name live.
    namespace,
    clusterResources: ['ImageValidatingPolicy'],
    dependsOn: [kyverno, sops],
    syncWave: policiesWave,
    appTier: true,
  });

  const secrets: DeliverySecretReference[] = [
    { namespace, name: publicKeySecret.name, keys: [COSIGN_PUBLIC_KEY_KEY], usedBy: `ImageValidatingPolicy ${denyPolicy.name}, ${auditPolicy.name}` },
    ...(settings.registryPullSecret === null ? [] : [{
      namespace, name: settings.registryPullSecret, keys: ['.dockerconfigjson'], usedBy: `Kyverno (registry ${registryHosts.join(', ')})`,
    }]),
  ];

  return {
    applications: [kyverno, policiesApplication],
    configPaths: new Map([[kyverno.name, 'delivery.kyverno'], [policiesApplication.name, 'delivery.kyverno']]),
    files: [
      [denyPolicy.resource, `${KYVERNO_POLICIES_DIST}/${denyPolicy.name}.yaml`],
      [auditPolicy.resource, `${KYVERNO_POLICIES_DIST}/${auditPolicy.name}.yaml`],
    ],
    extraFiles: new Map([[kyverno.valuesFile, [sortKeys(kyverno.values)]]]),
    secrets,
    kyverno,
    policiesApplication,
    denyPolicy,
    auditPolicy,
    excludedNamespaces: [...neverSeen, namespace].sort(),
    pullsFromForgejo: pullHost === forgejoHost,
  };
}

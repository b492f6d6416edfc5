import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import {
  ImageValidatingPolicy, ImageValidatingPolicySpecFailurePolicy, ImageValidatingPolicySpecValidationActions,
} from '../../../imports/kyverno-imagevalidatingpolicy-policies.kyverno.io';
import { COMMON_LABELS } from '../../shared/labels';
import { dnsLabelProblem, dnsSubdomainProblem } from '../../shared/names';
import { KYVERNO_WEBHOOK_TIMEOUT_SECONDS, KyvernoFailurePolicy } from '../../shared/kyverno-chart';

/** What a failed check does: `Deny` refuses the pod; `Audit` admits it and records a failed result in a policy report. */
export type SignatureValidationAction = 'Deny' | 'Audit';

/** One requirement of a namespace selector (`In`/`NotIn` take values, `Exists`/`DoesNotExist` take none). */
export interface NamespaceSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  /** @default [] */
  readonly values?: readonly string[];
}

/** The namespaces whose pods the policy checks: labels every one must have, and requirements every one must meet. */
export interface NamespaceSelector {
  /** @default {} */
  readonly matchLabels?: Readonly<Record<string, string>>;
  /** @default [] */
  readonly matchExpressions?: readonly NamespaceSelectorRequirement[];
}

/** A Secret, by namespace and name. */
export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/** Properties for `ImageSignaturePolicy`. */
export interface ImageSignaturePolicyProps {
  /** Name of the cluster-scoped `ImageValidatingPolicy`. */
  readonly name: string;
  /** `Deny` refuses a pod whose image is unsigned; `Audit` admits it and reports it. */
  readonly validationAction: SignatureValidationAction;
  /**
   * What the API server does when Kyverno does not answer in time: `Fail` refuses the pod, `Ignore` admits it unchecked.
   * Kyverno's own default for an unset field is `Fail` too (kyverno/api `imagevalidating_policy.go`).
   * @default 'Fail'
   */
  readonly failurePolicy?: KyvernoFailurePolicy;
  /**
   * Registry hosts (`host[:port]`) whose images must be signed; images of any other registry are not checked.
   */
  readonly registryHosts: readonly string[];
  /** The namespaces whose pods are checked. */
  readonly namespaceSelector: NamespaceSelector;
  /**
   * The Secret holding the cosign public key under `cosign.pub`; it must live in Kyverno's namespace, the only one whose
   * Secrets Kyverno's admission controller may read.
   */
  readonly publicKeySecret: SecretRef;
  /**
   * How long the API server waits for Kyverno on each pod, 1 to 30 seconds (Kyverno's own default is 10 seconds,
   * `pkg/controllers/webhook/controller.go` `DefaultWebhookTimeout`).
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /**
   * Fetch signatures over plain HTTP.
   * @default false
   */
  readonly allowInsecureRegistry?: boolean;
  /**
   * `kubernetes.io/dockerconfigjson` Secrets in Kyverno's namespace to authenticate to the registry with.
   * @default [] - anonymous, or the credentials of Kyverno's controller flags
   */
  readonly registryCredentialSecrets?: readonly string[];
}

/** The attestor name the validation expression refers to. */
const ATTESTOR = 'cosign';

/**
 * Every image of the matched registries, in every container list the pod has, carries a signature of the key. `images`
 * holds only the images `matchImageReferences` selects (Kyverno v1.19.0 `pkg/image/verification/evaluator/policy.go:141-156`),
 * with one list per container kind, always present, for pods and for the pod controllers autogen covers
 * (`pkg/cel/compiler/images.go:11-48`). `verifyImageSignatures` returns how many attestors verified the image.
 */
const VALIDATION_EXPRESSION = '(images.containers + images.initContainers + images.ephemeralContainers)' +
  `.all(image, verifyImageSignatures(image, [attestors.${ATTESTOR}]) > 0)`;

/**
 * A Kyverno `ImageValidatingPolicy` that requires a valid cosign signature, made with the homelab's key, on every image
 * of the given registries in the pods of the selected namespaces.
 *
 * The choices, from Kyverno v1.19.0's source:
 * - The key is referenced (`key.kms: k8s://<namespace>/<secret>`), never inlined; the policy has no `secretRef`, but `kms`
 *   takes any cosign key reference (`pkg/image/verifiers/ivpol/cosign/opts.go:219-224`).
 * - No transparency log (`ctlog.insecureIgnoreTlog`): signing is by key, offline; with a key and the tlog ignored Kyverno
 *   contacts no Sigstore service (`opts.go:83-87`), otherwise it would fetch TUF and Rekor material from the internet.
 * - `mutateDigest: false`: a mutating policy would rewrite image tags to digests in the Deployments autogen covers,
 *   objects Argo CD owns, which would then never be in sync; Image Updater writes digests to git instead.
 * - `verifyDigest: false`: an app is first deployed by tag, before the updater writes its digest
 *   (`policy.go:234-251` refuses any image without a digest when it is true); the signature is still checked against the
 *   digest the tag resolves to at admission.
 * - Background scans off (`evaluation.background.enabled: false`): they run in the reports controller
 *   (`cmd/reports-controller/main.go:183-210`), whose Role cannot read the key Secret (chart 3.9.0
 *   `templates/reports-controller/role.yaml`), so every scan would report an error instead of a result.
 * - `timeoutSeconds` gives the policy a webhook of its own with its own failure policy
 *   (`pkg/controllers/webhook/validating.go:27-36, 154-169`).
 *
 * @see https://kyverno.io/docs/policy-types/image-validating-policy/
 */
export class ImageSignaturePolicy extends Construct {
  public readonly name: string;
  public readonly validationAction: SignatureValidationAction;
  public readonly failurePolicy: KyvernoFailurePolicy;
  public readonly registryHosts: readonly string[];
  public readonly namespaceSelector: NamespaceSelector;
  public readonly publicKeySecret: SecretRef;
  public readonly timeout: Duration;
  public readonly allowInsecureRegistry: boolean;
  public readonly registryCredentialSecrets: readonly string[];
  /** The cosign key reference Kyverno resolves: `k8s://<namespace>/<secret>`. */
  public readonly publicKeyRef: string;
  /** The `ImageValidatingPolicy`. */
  public readonly resource: ImageValidatingPolicy;

  constructor(scope: Construct, id: string, props: ImageSignaturePolicyProps) {
    super(scope, id);
    this.name = props.name;
    this.validationAction = props.validationAction;
    this.failurePolicy = props.failurePolicy ?? 'Fail';
    this.registryHosts = [...new Set(props.registryHosts)].sort();
    this.namespaceSelector = props.namespaceSelector;
    this.publicKeySecret = props.publicKeySecret;
    this.timeout = props.timeout ?? Duration.seconds(10);
    this.allowInsecureRegistry = props.allowInsecureRegistry ?? false;
    this.registryCredentialSecrets = [...(props.registryCredentialSecrets ?? [])];
    this.validate();
    this.publicKeyRef = `k8s://${this.publicKeySecret.namespace}/${this.publicKeySecret.name}`;

    const selector = this.namespaceSelector;
    this.resource = new ImageValidatingPolicy(this, 'Resource', {
      metadata: { name: this.name, labels: { ...COMMON_LABELS } },
      spec: {
        validationActions: [this.validationAction === 'Deny'
          ? ImageValidatingPolicySpecValidationActions.DENY : ImageValidatingPolicySpecValidationActions.AUDIT],
        failurePolicy: this.failurePolicy === 'Fail' ? ImageValidatingPolicySpecFailurePolicy.FAIL : ImageValidatingPolicySpecFailurePolicy.IGNORE,
        webhookConfiguration: { timeoutSeconds: this.timeout.toSeconds() },
        matchConstraints: {
          // Pods only: autogen then extends the check to the Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs and
          // CronJobs that create them (pkg/cel/autogen/support.go:13-41), so an unsigned Deployment fails its Argo CD sync
          // with the message below. Argo Rollouts are not in autogen's list: their pods are checked when they are created.
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }],
          namespaceSelector: {
            matchLabels: selector.matchLabels && Object.keys(selector.matchLabels).length > 0 ? sortedRecord(selector.matchLabels) : undefined,
            matchExpressions: (selector.matchExpressions ?? []).length > 0 ? selector.matchExpressions!.map((e) => ({
              key: e.key, operator: e.operator, values: e.values && e.values.length > 0 ? [...e.values].sort() : undefined,
            })) : undefined,
          },
        },
        // gobwas/glob without separators: `*` also matches `/`, so `<host>/*` covers every repository of the host
        // (pkg/cel/compiler/compiler.go:176-183).
        matchImageReferences: this.registryHosts.map((host) => ({ glob: `${host}/*` })),
        attestors: [{
          name: ATTESTOR,
          cosign: { key: { kms: this.publicKeyRef }, ctlog: { insecureIgnoreTlog: true } },
        }],
        credentials: {
          allowInsecureRegistry: this.allowInsecureRegistry ? true : undefined,
          secrets: this.registryCredentialSecrets.length > 0 ? [...this.registryCredentialSecrets] : undefined,
        },
        validationConfigurations: { mutateDigest: false, verifyDigest: false, required: true },
        evaluation: { background: { enabled: false } },
        validations: [{
          expression: VALIDATION_EXPRESSION,
          message: `every image from ${this.registryHosts.join(', ')} must carry a cosign signature made with the homelab's key ` +
            `(public key: Secret ${this.publicKeySecret.namespace}/${this.publicKeySecret.name}, key cosign.pub). Sign it in CI by digest ` +
            '(cosign sign --key ... <image>@sha256:...) and deploy that digest.',
        }],
      },
    });
  }

  private validate(): void {
    const fail = (message: string): never => {
      throw new Error(`${this.node.path}: ${message}`);
    };
    const nameProblem = dnsSubdomainProblem(this.name);
    if (nameProblem) fail(`'name' ${nameProblem}, got '${this.name}'.`);
    if (this.registryHosts.length === 0) fail('\'registryHosts\' is empty, so the policy would check no image. Name the registry whose images must be signed.');
    for (const host of this.registryHosts) {
      if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$/.test(host)) {
        fail(`'registryHosts' entry '${host}' is not a registry host such as 'registry.lan' or 'forgejo-http.cicd.svc.cluster.local:3000' ` +
          '(no scheme, no path, no wildcard).');
      }
    }
    const selector = this.namespaceSelector;
    if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
      fail('\'namespaceSelector\' is empty, so the policy would check every namespace, kube-system\'s and Kyverno\'s pods included. ' +
        'Select the namespaces by label, or exclude the platform ones with a NotIn requirement.');
    }
    for (const e of selector.matchExpressions ?? []) {
      const withValues = e.operator === 'In' || e.operator === 'NotIn';
      if (withValues !== (e.values ?? []).length > 0) {
        fail(`'namespaceSelector' requirement on '${e.key}' with operator '${e.operator}' ${withValues ? 'needs values' : 'takes no values'}.`);
      }
    }
    for (const [what, v] of [['publicKeySecret.namespace', this.publicKeySecret.namespace], ['publicKeySecret.name', this.publicKeySecret.name]] as const) {
      const problem = what.endsWith('namespace') ? dnsLabelProblem(v) : dnsSubdomainProblem(v);
      if (problem) fail(`'${what}' ${problem}, got '${v}'.`);
    }
    const seconds = this.timeout.toSeconds({ integral: false });
    const { min, max } = KYVERNO_WEBHOOK_TIMEOUT_SECONDS;
    if (!Number.isInteger(seconds) || seconds < min || seconds > max) {
      fail(`'timeout' must be a whole number of seconds from ${min} to ${max}, got ${seconds}.`);
    }
  }
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]]));
}

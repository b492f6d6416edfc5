/**
 * `delivery.kyverno`: Kyverno and its image signature policies. Owned by the Kyverno slice.
 *
 * Two `ImageValidatingPolicy` objects require a cosign signature on images of the homelab registry: `Deny` with
 * `failurePolicy` (default `Fail`) in the app tier, `Audit` with `Ignore` everywhere else. The choices and their
 * upstream sources are in lib/constructs/delivery/image-signature-policy.ts and the README ("Image signatures").
 */
import { z } from 'zod';
import { integer, namespaceName, secretName } from '../fields';
import { show } from '../messages';
import { KYVERNO_CHART, KYVERNO_FAILURE_POLICIES, KYVERNO_WEBHOOK_TIMEOUT_SECONDS } from '../../shared/kyverno-chart';

const { min: MIN_TIMEOUT, max: MAX_TIMEOUT } = KYVERNO_WEBHOOK_TIMEOUT_SECONDS;

export const KyvernoSchema = z.strictObject({
  /** Version of the `kyverno` chart; must equal the version the generated values are written for. @default '3.9.0' */
  chartVersion: z.string().default(KYVERNO_CHART.version),
  /** Namespace Kyverno runs in; its Application creates it. The public key and registry Secrets live here. @default 'kyverno' */
  namespace: namespaceName.default('kyverno'),
  /**
   * What the API server does with a pod of the app tier while Kyverno cannot answer (the `Deny` policy's
   * `failurePolicy`): `Fail` refuses it, so nothing unverified starts; `Ignore` admits it unchecked. The `Audit` policy of
   * the other namespaces is always `Ignore`.
   * @default 'Fail'
   */
  failurePolicy: z.enum(KYVERNO_FAILURE_POLICIES, {
    error: (issue) => `${show(issue.input)} is not a failure policy; use one of ${KYVERNO_FAILURE_POLICIES.map((p) => `'${p}'`).join(', ')}.`,
  }).default('Fail'),
  /**
   * Seconds the API server waits for Kyverno on each pod (`webhookConfiguration.timeoutSeconds` of both policies,
   * 1 to 30): long enough for a registry round trip to fetch the signature, short enough that a hung Kyverno answers
   * with the failure policy before a controller's own request times out.
   * @default 15
   */
  timeoutSeconds: z.number().superRefine((v, ctx) => {
    if (!Number.isInteger(v) || v < MIN_TIMEOUT || v > MAX_TIMEOUT) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number of seconds from ${MIN_TIMEOUT} to ${MAX_TIMEOUT} (the API server's ` +
        `webhook limit), got ${v}.` });
    }
  }).default(15),
  /**
   * Namespaces no Kyverno webhook ever sees, on top of the ones that are always excluded (kube-system, Kyverno's own,
   * Argo CD's, the Phase-0 namespaces of `namespaces`). An app-tier namespace cannot be excluded.
   * @default []
   */
  excludedNamespaces: z.array(namespaceName).readonly().default([]),
  /**
   * Let Kyverno fetch signatures over plain HTTP (`credentials.allowInsecureRegistry`): Forgejo's in-cluster Service,
   * the pull name, serves HTTP.
   * @default true
   */
  allowInsecureRegistry: z.boolean().default(true),
  /**
   * A `kubernetes.io/dockerconfigjson` Secret in Kyverno's namespace with read access to the registry, the credential
   * the nodes pull with; `null` fetches signatures anonymously (public packages only).
   * @default 'forgejo-registry-read'
   */
  registryPullSecret: secretName.nullable().default('forgejo-registry-read'),
  /**
   * Pods of Kyverno's admission controller. With `failurePolicy: 'Fail'` an app-tier pod can start only while one
   * answers; above 1 the chart also defines a PodDisruptionBudget (values.yaml `admissionController.podDisruptionBudget`).
   * @default 3
   */
  admissionControllerReplicas: integer(1).default(3),
}).readonly();

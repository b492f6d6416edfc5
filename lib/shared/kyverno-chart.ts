/**
 * The Kyverno chart the generated values are written for, and the names the config schema and the constructs share.
 * Pure data. Chart 3.9.0 ships Kyverno v1.19.0 (`charts/kyverno/Chart.yaml` at tag kyverno-chart-3.9.0, the same commit
 * as v1.19.0), whose `ImageValidatingPolicy` CRD is the pinned snapshot of scripts/crd-sources.json: the two move
 * together (lib/shared/coupled-pins.ts, group `kyverno`).
 */

/** The chart (repository, name, version) the values of lib/constructs/delivery/kyverno-values.ts are written for. */
export const KYVERNO_CHART = { repoURL: 'https://kyverno.github.io/kyverno/', chart: 'kyverno', version: '3.9.0' } as const;

/** What Kyverno does when its webhook cannot answer (`spec.failurePolicy` of an `ImageValidatingPolicy`). */
export const KYVERNO_FAILURE_POLICIES = ['Fail', 'Ignore'] as const;
export type KyvernoFailurePolicy = (typeof KYVERNO_FAILURE_POLICIES)[number];

/**
 * The bounds of `webhookConfiguration.timeoutSeconds` (CRD `policies.kyverno.io_imagevalidatingpolicies.yaml` at
 * v1.19.0: "The default timeout is 10s, the value must be between 1 and 30 seconds").
 */
export const KYVERNO_WEBHOOK_TIMEOUT_SECONDS = { min: 1, max: 30 } as const;

/**
 * Key of the cosign public key in the Secret a `k8s://<namespace>/<name>` key reference names: cosign reads
 * `cosign.pub` (sigstore/cosign v3.1.2 `pkg/signature/keys.go:176-183`, the version Kyverno v1.19.0 requires, go.mod:52).
 */
export const COSIGN_PUBLIC_KEY_KEY = 'cosign.pub';

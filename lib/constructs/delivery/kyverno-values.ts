/**
 * Helm values of the Kyverno chart, written for one chart version (`KYVERNO_CHART.version`). Pure functions, no
 * constructs. Each key is read from `charts/kyverno/values.yaml` at tag kyverno-chart-3.9.0 (= v1.19.0).
 */
/** The label every namespace carries with its own name (Kubernetes sets it); webhooks exclude namespaces by it. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** Inputs of `kyvernoValues`. */
export interface KyvernoValuesOptions {
  /**
   * Namespaces no Kyverno webhook may see, Kyverno's own excepted (the chart adds it, below). Must include `kube-system`:
   * the list replaces the chart's default, which is just `kube-system`.
   */
  readonly excludedNamespaces: readonly string[];
  /** Pods of the admission controller, at least 1. */
  readonly admissionControllerReplicas: number;
}

/** The values file for chart `KYVERNO_CHART.version`, keys in a stable order. */
export function kyvernoValues(options: KyvernoValuesOptions): Record<string, unknown> {
  const excluded = [...new Set(options.excludedNamespaces)].sort();
  if (!excluded.includes('kube-system')) {
    throw new Error(`kyverno values: excludedNamespaces must include 'kube-system' (it replaces the chart's default list), got ${JSON.stringify(excluded)}.`);
  }
  if (!Number.isInteger(options.admissionControllerReplicas) || options.admissionControllerReplicas < 1) {
    // The chart fails on 0 ("Kyverno does not support running with 0 replicas", templates/_helpers/_deployment.tpl).
    throw new Error(`kyverno values: admissionControllerReplicas must be an integer of at least 1, got ${options.admissionControllerReplicas}.`);
  }
  return {
    admissionController: {
      // With failurePolicy Fail an app-tier pod starts only while an admission controller answers. values.yaml:1229-1232:
      // the PodDisruptionBudget "will always be enabled if replicas > 1", so a node drain keeps one answering.
      replicas: options.admissionControllerReplicas,
    },
    config: {
      // values.yaml:447-478 and templates/config/_helpers.tpl:57-80: this selector goes into every resource webhook
      // Kyverno registers, and the webhook of each policy is the policy's own namespaceSelector ANDed with it
      // (pkg/controllers/webhook/validating.go:371-383), so a namespace listed here is never sent to Kyverno, whatever
      // the policies say. With excludeKyvernoNamespace the chart appends `NotIn [<kyverno namespace>]`, which is what
      // lets Kyverno restart while its webhooks are registered with Fail.
      excludeKyvernoNamespace: true,
      webhooks: {
        namespaceSelector: {
          matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: excluded }],
        },
      },
    },
    features: {
      // values.yaml:860-862 (default false): adds a match condition to every Fail webhook that skips Nodes and
      // CertificateSigningRequests, so a cluster restarting with no Kyverno pod can still register its nodes and schedule
      // Kyverno (pkg/controllers/webhook/bootstrap_exclusion.go).
      excludeBootstrapResources: { enabled: true },
    },
  };
}

/**
 * Cluster-scoped kinds an Application may be allowed to manage, as one typed table. The `homelab` AppProject's
 * `clusterResourceWhitelist` is the union of the kinds its Applications declare, so it is an explicit list
 * that never contains `*`. Pure data, no constructs.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/projects/
 */

/** An API group and kind, as AppProject resource lists name them (`''` is the core group). */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** Every cluster-scoped kind the homelab's Applications may manage. Add a row to allow a new kind. */
export const CLUSTER_SCOPED_KINDS = {
  Namespace: { group: '', kind: 'Namespace' },
  CustomResourceDefinition: { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' },
  ClusterRole: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
  StorageClass: { group: 'storage.k8s.io', kind: 'StorageClass' },
  IngressClass: { group: 'networking.k8s.io', kind: 'IngressClass' },
  PriorityClass: { group: 'scheduling.k8s.io', kind: 'PriorityClass' },
  ValidatingWebhookConfiguration: { group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration' },
  MutatingWebhookConfiguration: { group: 'admissionregistration.k8s.io', kind: 'MutatingWebhookConfiguration' },
  APIService: { group: 'apiregistration.k8s.io', kind: 'APIService' },
  ClusterIssuer: { group: 'cert-manager.io', kind: 'ClusterIssuer' },
  ImageValidatingPolicy: { group: 'policies.kyverno.io', kind: 'ImageValidatingPolicy' },
} as const satisfies Record<string, GroupKind>;

/** Name of a cluster-scoped kind of `CLUSTER_SCOPED_KINDS`. */
export type ClusterScopedKind = keyof typeof CLUSTER_SCOPED_KINDS;

/** Orders group/kinds by group, then kind, for deterministic output. */
export function compareGroupKind(a: GroupKind, b: GroupKind): number {
  const ka = `${a.group}/${a.kind}`;
  const kb = `${b.group}/${b.kind}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

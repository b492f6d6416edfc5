/**
 * Typed pieces of an Application's sync policy. Pure types and helpers, no constructs.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/
 */

/**
 * Application-level sync options the homelab uses; each is rendered as `<Option>=true`.
 *
 * - `CreateNamespace`: create `destination.namespace` if it is missing (required by `managedNamespaceMetadata`).
 * - `ServerSideApply`: `kubectl apply --server-side`; needed for objects larger than the 262144-byte
 *   last-applied annotation, such as big CRDs and dashboard ConfigMaps.
 * - `SkipDryRunOnMissingResource`: skip the dry run for kinds whose CRD another Application installs.
 * - `PruneLast`: prune as a final, implicit wave, after everything else is healthy.
 * - `FailOnSharedResource`: fail the sync when an object is already applied by another Application.
 * - `RespectIgnoreDifferences`: apply `ignoreDifferences` during the sync too, not only in the diff: the ignored
 *   fields keep their live values (by default the desired state is applied as is). Effective only for objects that
 *   already exist, such as those of a Helm release an Application adopts.
 */
export type SyncOption = 'CreateNamespace' | 'ServerSideApply' | 'SkipDryRunOnMissingResource' | 'PruneLast' | 'FailOnSharedResource'
  | 'RespectIgnoreDifferences';

/** Every `SyncOption`, in rendering order. */
export const SYNC_OPTIONS: readonly SyncOption[] = [
  'CreateNamespace', 'FailOnSharedResource', 'PruneLast', 'RespectIgnoreDifferences', 'ServerSideApply', 'SkipDryRunOnMissingResource',
];

/** Labels and annotations Argo CD sets on the namespace it creates (`syncPolicy.managedNamespaceMetadata`). */
export interface ManagedNamespaceMetadata {
  /**
   * Labels of the namespace, e.g. the Pod Security Standards labels.
   * @default {}
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Annotations of the namespace.
   * @default {}
   */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A resource field Argo CD ignores when it compares live and desired state (`spec.ignoreDifferences[]`). */
export interface IgnoreDifference {
  /**
   * API group of the resource (`''` for the core group).
   * @default ''
   */
  readonly group?: string;
  /** Kind of the resource. */
  readonly kind: string;
  /**
   * Name of the resource.
   * @default - every resource of the kind
   */
  readonly name?: string;
  /**
   * Namespace of the resource.
   * @default - every namespace
   */
  readonly namespace?: string;
  /**
   * JSON pointers of the ignored fields, e.g. `/spec/replicas`.
   * @default []
   */
  readonly jsonPointers?: readonly string[];
  /**
   * jq path expressions of the ignored fields, e.g. `.webhooks[]?.clientConfig.caBundle`.
   * @default []
   */
  readonly jqPathExpressions?: readonly string[];
  /**
   * Field managers whose fields are ignored, e.g. `kube-controller-manager`.
   * @default []
   */
  readonly managedFieldsManagers?: readonly string[];
}

/** Renders a duration the way Argo CD's retry backoff reads it (`5s`, `3m`, `1h`). */
export function backoffDuration(seconds: number): string {
  if (seconds > 0 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds > 0 && seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** Sorted copy of a string record, for deterministic output. */
export function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

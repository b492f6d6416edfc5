/**
 * Fields the Kubernetes API server refuses to change on update, for the kinds the output holds (ours and the
 * upstream manifests it installs): a pull request that changes one of them fails to apply, or needs the object
 * deleted and re-created. Every entry cites the kube-apiserver v1.30.14 source that enforces it and the message
 * it answers with; `npm run test:cluster` (test/cluster/immutable-fields.test.ts) changes each field on a real
 * API server and checks that exact refusal, so the list cannot drift from the server.
 *
 * CRD fields guarded by a CEL rule `self == oldSelf` are not typed here: crdImmutableFields() derives them from
 * the pinned CRDs themselves.
 */

/** How the server judges a change of the field. */
export type ImmutableRule =
  /** Any change is refused. */
  | 'immutable'
  /** Refused only when the object sets `immutable: true` (Secret, ConfigMap). */
  | 'immutable-when-marked'
  /** A smaller value is refused; a larger one only where the StorageClass allows expansion. */
  | 'no-shrink';

export interface ImmutableField {
  readonly apiVersion: string;
  readonly kind: string;
  /** Dotted path from the object's root, e.g. `spec.selector`. */
  readonly path: string;
  readonly rule: ImmutableRule;
  /** A part of the API server's refusal, verbatim. */
  readonly message: string;
  /** Where kube-apiserver v1.30.14 enforces it (k8s.io/kubernetes). */
  readonly source: string;
}

const STATEFULSET_SPEC = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', " +
  "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
const STATEFULSET_SOURCE = 'pkg/apis/apps/validation/validation.go ValidateStatefulSetUpdate';
const STORAGE_CLASS_SOURCE = 'pkg/apis/storage/validation/validation.go ValidateStorageClassUpdate';

export const IMMUTABLE_FIELDS: readonly ImmutableField[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment', path: 'spec.selector', rule: 'immutable', message: 'field is immutable',
    source: 'pkg/registry/apps/deployment/strategy.go ValidateUpdate (apps/v1)' },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', path: 'spec.selector', rule: 'immutable', message: 'field is immutable',
    source: 'pkg/registry/apps/daemonset/strategy.go ValidateUpdate (apps/v1)' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', path: 'spec.selector', rule: 'immutable', message: STATEFULSET_SPEC, source: STATEFULSET_SOURCE },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', path: 'spec.serviceName', rule: 'immutable', message: STATEFULSET_SPEC, source: STATEFULSET_SOURCE },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', path: 'spec.volumeClaimTemplates', rule: 'immutable', message: STATEFULSET_SPEC, source: STATEFULSET_SOURCE },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', path: 'spec.podManagementPolicy', rule: 'immutable', message: STATEFULSET_SPEC, source: STATEFULSET_SOURCE },
  { apiVersion: 'batch/v1', kind: 'Job', path: 'spec.template', rule: 'immutable', message: 'field is immutable',
    source: 'pkg/apis/batch/validation/validation.go validateJobSpecUpdate' },
  { apiVersion: 'batch/v1', kind: 'Job', path: 'spec.selector', rule: 'immutable', message: 'field is immutable',
    source: 'pkg/apis/batch/validation/validation.go validateJobSpecUpdate' },
  { apiVersion: 'batch/v1', kind: 'Job', path: 'spec.completionMode', rule: 'immutable', message: 'field is immutable',
    source: 'pkg/apis/batch/validation/validation.go validateJobSpecUpdate' },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', path: 'spec.resources.requests.storage', rule: 'no-shrink', message: 'field can not be less than previous value',
    source: 'pkg/apis/core/validation/validation.go ValidatePersistentVolumeClaimUpdate' },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', path: 'spec.storageClassName', rule: 'immutable',
    message: 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    source: 'pkg/apis/core/validation/validation.go ValidatePersistentVolumeClaimUpdate' },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', path: 'spec.accessModes', rule: 'immutable',
    message: 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    source: 'pkg/apis/core/validation/validation.go ValidatePersistentVolumeClaimUpdate' },
  { apiVersion: 'v1', kind: 'Service', path: 'spec.clusterIP', rule: 'immutable', message: 'may not change once set',
    source: 'pkg/apis/core/validation/validation.go ValidateServiceUpdate (validateServiceClusterIPsRelatedFields)' },
  { apiVersion: 'v1', kind: 'Secret', path: 'type', rule: 'immutable', message: 'field is immutable',
    source: 'pkg/apis/core/validation/validation.go ValidateSecretUpdate' },
  { apiVersion: 'v1', kind: 'Secret', path: 'data', rule: 'immutable-when-marked', message: 'field is immutable when `immutable` is set',
    source: 'pkg/apis/core/validation/validation.go ValidateSecretUpdate' },
  { apiVersion: 'v1', kind: 'ConfigMap', path: 'data', rule: 'immutable-when-marked', message: 'field is immutable when `immutable` is set',
    source: 'pkg/apis/core/validation/validation.go ValidateConfigMapUpdate' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', path: 'roleRef', rule: 'immutable', message: 'cannot change roleRef',
    source: 'pkg/apis/rbac/validation/validation.go ValidateRoleBindingUpdate' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', path: 'roleRef', rule: 'immutable', message: 'cannot change roleRef',
    source: 'pkg/apis/rbac/validation/validation.go ValidateClusterRoleBindingUpdate' },
  { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', path: 'provisioner', rule: 'immutable', message: 'updates to provisioner are forbidden.', source: STORAGE_CLASS_SOURCE },
  { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', path: 'parameters', rule: 'immutable', message: 'updates to parameters are forbidden.', source: STORAGE_CLASS_SOURCE },
  { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', path: 'reclaimPolicy', rule: 'immutable', message: 'updates to reclaimPolicy are forbidden.', source: STORAGE_CLASS_SOURCE },
];

/** A field of a custom resource that its CRD makes immutable with a CEL rule. */
export interface CrdImmutableField {
  readonly group: string;
  readonly kind: string;
  readonly version: string;
  readonly path: string;
  /** The rule's own message (`x-kubernetes-validations[].message`). */
  readonly message: string;
}

const IMMUTABLE_RULE = /^self(\.[A-Za-z_][A-Za-z0-9_]*)? == oldSelf\1$/;

/**
 * Immutable fields a CRD declares itself: every `x-kubernetes-validations` rule of the form
 * `self == oldSelf` (the field it sits on) or `self.x == oldSelf.x` (its child `x`), in every served version.
 */
export function crdImmutableFields(crd: any): CrdImmutableField[] {
  const found: CrdImmutableField[] = [];
  const group: string = crd.spec.group;
  const kind: string = crd.spec.names.kind;
  const visit = (schema: any, path: string[], version: string): void => {
    if (schema === null || typeof schema !== 'object') return;
    for (const v of schema['x-kubernetes-validations'] ?? []) {
      const match = IMMUTABLE_RULE.exec(String(v.rule).trim());
      if (match !== null) {
        const child = match[1] === undefined ? [] : [match[1].slice(1)];
        found.push({ group, kind, version, path: [...path, ...child].join('.'), message: v.message ?? `${[...path, ...child].join('.')} is immutable` });
      }
    }
    for (const [name, property] of Object.entries<any>(schema.properties ?? {})) visit(property, [...path, name], version);
    if (schema.items !== undefined) visit(schema.items, [...path, '[]'], version);
  };
  for (const version of crd.spec.versions ?? []) {
    if (version.served === false) continue;
    visit(version.schema?.openAPIV3Schema, [], version.name);
  }
  return found;
}

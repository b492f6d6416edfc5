/**
 * A Pod Security Standards level.
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/
 */
export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';

/** Labels (and annotations) Argo CD sets on a namespace it creates (`managedNamespaceMetadata`). */
export interface NamespaceMetadata {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * Pod Security Standards labels for a namespace Argo CD creates: `enforce` rejects, `warn` and `audit`
 * report. Pure function, no constructs.
 *
 * @see https://kubernetes.io/docs/concepts/security/pod-security-admission/
 */
export function podSecurityNamespaceMetadata(enforce: PodSecurityLevel, warn: PodSecurityLevel = enforce): NamespaceMetadata {
  return {
    labels: {
      'pod-security.kubernetes.io/enforce': enforce,
      'pod-security.kubernetes.io/warn': warn,
      'pod-security.kubernetes.io/audit': warn,
    },
  };
}

/** A field of a container's `securityContext` that a `PodSecurityException` lets go beyond the restricted profile. */
export type PodSecurityExceptionField = 'seccompProfile' | 'appArmorProfile' | 'allowPrivilegeEscalation' | 'capabilities';

/**
 * One container that may go beyond the restricted profile (which the output validation checks on every pod template)
 * in the named fields only, with the reason. `privileged`, host namespaces and host paths are never excepted.
 */
export interface PodSecurityException {
  /** The object as the validation names it: `<Kind>/<namespace>/<name>`, e.g. `Deployment/forgejo-runner/forgejo-runner`. */
  readonly object: string;
  readonly container: string;
  readonly fields: readonly PodSecurityExceptionField[];
  readonly reason: string;
}

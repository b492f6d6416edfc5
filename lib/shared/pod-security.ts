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

import type { ManagedNamespaceMetadata, PodSecurityLevel } from './resolved';

/**
 * Pod Security Standards labels for a namespace Argo CD creates: `enforce` rejects, `warn` and `audit`
 * report. Pure function, no constructs.
 *
 * @see https://kubernetes.io/docs/concepts/security/pod-security-admission/
 */
export function podSecurityNamespaceMetadata(enforce: PodSecurityLevel, warn: PodSecurityLevel = enforce): ManagedNamespaceMetadata {
  return {
    labels: {
      'pod-security.kubernetes.io/enforce': enforce,
      'pod-security.kubernetes.io/warn': warn,
      'pod-security.kubernetes.io/audit': warn,
    },
  };
}

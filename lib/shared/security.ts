import { k8s } from 'cdk8s-plus-30';

/**
 * Container security context of the Pod Security Standards *restricted* profile: non-root, no privilege
 * escalation, every capability dropped, RuntimeDefault seccomp, read-only root filesystem.
 */
export function restrictedContainerSecurityContext(uid: number, gid: number = uid): k8s.SecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: gid,
    allowPrivilegeEscalation: false,
    privileged: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** Pod security context of the restricted profile; `fsGroup` makes volumes writable for `gid`. */
export function restrictedPodSecurityContext(uid: number, gid: number = uid): k8s.PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: gid,
    fsGroup: gid,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

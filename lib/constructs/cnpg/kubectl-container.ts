import { k8s } from 'cdk8s-plus-30';
import { restrictedContainerSecurityContext } from '../../shared/security';

/** Non-root uid/gid the kubectl Jobs run as (the distroless `nonroot` user of the kubectl image). */
export const KUBECTL_UID = 65532;

/**
 * One container that runs one kubectl command through the image's entrypoint, never a shell (the pinned kubectl
 * image is distroless), as the restricted Pod Security profile requires: kubectl's own error becomes the termination
 * message `kubectl describe` shows, and `HOME` is the pod's `tmp` emptyDir (kubectl writes its cache there), which the
 * pod must define. Shared by the wait Jobs and the restore drill.
 */
export function kubectlContainer(name: string, image: string, args: string[], extraMounts: k8s.VolumeMount[] = []): k8s.Container {
  return {
    name,
    image,
    args,
    terminationMessagePolicy: 'FallbackToLogsOnError',
    env: [{ name: 'HOME', value: '/tmp' }],
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }, ...extraMounts],
    resources: {
      requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('32Mi') },
      limits: { memory: k8s.Quantity.fromString('64Mi') },
    },
    securityContext: restrictedContainerSecurityContext(KUBECTL_UID),
  };
}

import { k8s } from 'cdk8s-plus-30';

/**
 * uid and gid of the rootless BuildKit image's `user` (moby/buildkit v0.32.2 Dockerfile, stage `rootless`:
 * `adduser -D -u 1000 user`, `USER 1000:1000`); its subuid/subgid range 100000-165535 maps the build containers.
 */
export const BUILDKIT_UID = 1000;

/**
 * The folder of buildkitd's socket: `XDG_RUNTIME_DIR` of the rootless image (`/run/user/1000`), whose
 * `BUILDKIT_HOST` points `buildctl` at `unix:///run/user/1000/buildkit/buildkitd.sock`. Shared with the runner
 * container through an `emptyDir`, so the daemon listens on no network port and needs no TLS certificates.
 */
export const BUILDKIT_SOCKET_DIR = `/run/user/${BUILDKIT_UID}/buildkit`;

/** The address `buildctl` connects to. */
export const BUILDKIT_HOST = `unix://${BUILDKIT_SOCKET_DIR}/buildkitd.sock`;

/**
 * Where buildkitd keeps its state. moby/buildkit `examples/kubernetes/deployment+service.rootless.yaml` mounts an
 * `emptyDir` here because the image's `VOLUME` does not work rootless on some hosts (mounted `nosuid,nodev`).
 */
export const BUILDKIT_STATE_DIR = '/home/user/.local/share/buildkit';

/** Name of the daemon's container. */
export const BUILDKIT_CONTAINER = 'buildkitd';

/** Options of `rootlessBuildkitContainer`. */
export interface RootlessBuildkitContainerOptions {
  /** A rootless BuildKit image (a `-rootless` tag). */
  readonly image: string;
  /** Volume mounted at `BUILDKIT_SOCKET_DIR` (shared with the client container). */
  readonly socketVolume: string;
  /** Volume mounted at `BUILDKIT_STATE_DIR`. */
  readonly stateVolume: string;
  readonly cpuRequest: string;
  readonly memoryRequest: string;
  readonly memoryLimit: string;
}

/**
 * The buildkitd container, rootless: uid 1000 under RootlessKit, never `privileged`. What it still needs, from
 * moby/buildkit v0.32.2 `docs/rootless.md` ("Justification of the `--security-opt` flags") and
 * `examples/kubernetes/deployment+service.rootless.yaml`:
 *
 * - seccomp `Unconfined`: RuntimeDefault refuses `unshare` (runc's user namespace) and `mount` (the snapshotter);
 * - AppArmor `Unconfined`: the default profile refuses mounting (not needed where the node has no AppArmor, as on
 *   Talos, but harmless there);
 * - `--oci-worker-no-process-sandbox` instead of Docker's `systempaths=unconfined`, which Kubernetes lacks: the build
 *   steps share the daemon's PID namespace (the docs' caveat: a step could signal the daemon; it runs as the same
 *   unprivileged user);
 * - privilege escalation left allowed: RootlessKit maps the sub-uid range with the setuid `newuidmap`/`newgidmap` of
 *   Alpine's `shadow-uidmap`, which `no_new_privs` would disable; and the node's `user.max_user_namespaces` above 0.
 *
 * Pod Security: `baseline` forbids an Unconfined seccomp or AppArmor profile, so the pod's namespace enforces
 * `privileged`, while the container itself is not privileged and mounts nothing of the host.
 */
export function rootlessBuildkitContainer(options: RootlessBuildkitContainerOptions): k8s.Container {
  const probe: k8s.Probe = { exec: { command: ['buildctl', 'debug', 'workers'] }, initialDelaySeconds: 5, periodSeconds: 30 };
  return {
    name: BUILDKIT_CONTAINER,
    image: options.image,
    // The image's entrypoint is `rootlesskit buildkitd`; these are buildkitd's flags. Only the unix socket: the
    // runner in the same pod is the one client.
    args: ['--addr', BUILDKIT_HOST, '--oci-worker-no-process-sandbox'],
    securityContext: {
      runAsNonRoot: true,
      runAsUser: BUILDKIT_UID,
      runAsGroup: BUILDKIT_UID,
      privileged: false,
      seccompProfile: { type: 'Unconfined' },
      appArmorProfile: { type: 'Unconfined' },
    },
    readinessProbe: probe,
    livenessProbe: probe,
    resources: {
      requests: { cpu: k8s.Quantity.fromString(options.cpuRequest), memory: k8s.Quantity.fromString(options.memoryRequest) },
      limits: { memory: k8s.Quantity.fromString(options.memoryLimit) },
    },
    volumeMounts: [
      { name: options.socketVolume, mountPath: BUILDKIT_SOCKET_DIR },
      { name: options.stateVolume, mountPath: BUILDKIT_STATE_DIR },
    ],
  };
}

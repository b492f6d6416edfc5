import { container, deployment, job, podSpec, problemsOf, problemsOfObjects } from './util';

const P = 'm.yaml: Deployment apps/app: spec.template.spec';

/** A restricted container securityContext with `changes` applied; a key set to undefined is left out. */
function sc(changes: Record<string, unknown>): Record<string, unknown> {
  const base: Record<string, unknown> = {
    allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' },
  };
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}

const withContainers = (...containers: Record<string, unknown>[]) => problemsOfObjects(deployment(podSpec({ containers })));

test('fails when runAsNonRoot is set neither on the container nor on the pod', () => {
  expect(problemsOfObjects(deployment(podSpec({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [container({ securityContext: sc({ runAsNonRoot: undefined }) })] })))).toEqual([
    `${P}.containers[0].securityContext.runAsNonRoot: container 'app' may run as root: runAsNonRoot is set neither on it nor on the pod; `
      + 'set securityContext.runAsNonRoot: true',
  ]);
});

test('fails on uid 0', () => {
  expect(withContainers(container({ securityContext: sc({ runAsUser: 0 }) }))).toEqual([
    `${P}.containers[0].securityContext.runAsUser: container 'app' runs as uid 0 (root), which the restricted profile forbids; use a non-zero uid`,
  ]);
});

test('fails when allowPrivilegeEscalation is not false', () => {
  expect(withContainers(container({ securityContext: sc({ allowPrivilegeEscalation: true }) }))).toEqual([
    `${P}.containers[0].securityContext.allowPrivilegeEscalation: container 'app' has allowPrivilegeEscalation true; the restricted profile `
      + 'needs false. Set securityContext.allowPrivilegeEscalation: false',
  ]);
});

test('fails unless capabilities drop ALL and add at most NET_BIND_SERVICE', () => {
  expect(withContainers(container({ securityContext: sc({ capabilities: { drop: ['NET_RAW'], add: ['NET_BIND_SERVICE', 'SYS_ADMIN'] } }) }))).toEqual([
    `${P}.containers[0].securityContext.capabilities.add[1]: container 'app' adds capability 'SYS_ADMIN'; the restricted profile allows `
      + 'adding only NET_BIND_SERVICE. Remove it',
    `${P}.containers[0].securityContext.capabilities.drop: container 'app' drops ["NET_RAW"]; the restricted profile needs capabilities.drop: [ALL]`,
  ]);
});

test('fails on a missing or unconfined seccomp profile', () => {
  const spec = podSpec({
    securityContext: { runAsNonRoot: true },
    containers: [container({ securityContext: sc({ seccompProfile: undefined }) }), container({ name: 'b', securityContext: sc({ seccompProfile: { type: 'Unconfined' } }) })],
  });
  expect(problemsOfObjects(deployment(spec))).toEqual([
    `${P}.containers[0].securityContext.seccompProfile: container 'app' has no seccomp profile, on it or on the pod; `
      + 'set securityContext.seccompProfile.type: RuntimeDefault',
    `${P}.containers[1].securityContext.seccompProfile.type: container 'b' has seccomp profile 'Unconfined'; the restricted profile needs `
      + "'RuntimeDefault' or 'Localhost'",
  ]);
});

test('fails on hostPath and volume types the restricted profile does not allow', () => {
  const volumes = [{ name: 'h', hostPath: { path: '/var/run' } }, { name: 'n', nfs: { server: 's', path: '/' } }, { name: 'ok', emptyDir: {} }];
  expect(problemsOfObjects(deployment(podSpec({ volumes })))).toEqual([
    `${P}.volumes[0].hostPath: volume 'h' mounts host path '/var/run', which the baseline profile forbids; use a persistentVolumeClaim or emptyDir`,
    `${P}.volumes[1].nfs: volume 'n' has type 'nfs', which the restricted profile forbids; use one of configMap, csi, downwardAPI, emptyDir, `
      + 'ephemeral, persistentVolumeClaim, projected, secret',
  ]);
});

test('fails on host namespaces, privileged containers and host ports', () => {
  const spec = podSpec({
    hostNetwork: true,
    hostPID: true,
    hostIPC: true,
    containers: [container({ securityContext: sc({ privileged: true }), ports: [{ containerPort: 80, hostPort: 80 }] })],
  });
  expect(problemsOfObjects(deployment(spec))).toEqual([
    `${P}.containers[0].ports[0].hostPort: container 'app' binds host port 80, which the baseline profile forbids; expose it with a Service instead`,
    `${P}.containers[0].securityContext.privileged: container 'app' is privileged, which the baseline profile forbids; remove privileged: true`,
    `${P}.hostIPC: hostIPC: true shares the node's namespace with the pod, which the baseline profile forbids; remove it`,
    `${P}.hostNetwork: hostNetwork: true shares the node's namespace with the pod, which the baseline profile forbids; remove it`,
    `${P}.hostPID: hostPID: true shares the node's namespace with the pod, which the baseline profile forbids; remove it`,
  ]);
});

test('fails on unsafe sysctls', () => {
  const spec = podSpec({ securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, sysctls: [{ name: 'kernel.msgmax', value: '1' }] } });
  expect(problemsOfObjects(deployment(spec))).toEqual([
    `${P}.securityContext.sysctls[0].name: sysctl 'kernel.msgmax' is not in the baseline profile's safe set; remove it`,
  ]);
});

test('fails on untagged, latest and malformed-digest images; accepts a tag with a digest', () => {
  expect(withContainers(
    container({ image: 'redis' }),
    container({ name: 'b', image: 'redis:latest' }),
    container({ name: 'c', image: 'redis@sha256:abc' }),
    container({ name: 'd', image: 'localhost:5000/redis' }),
    container({ name: 'e', image: `redis:7@sha256:${'a'.repeat(64)}` }),
  )).toEqual([
    `${P}.containers[0].image: container 'app': image 'redis' is not pinned: without a tag it pulls :latest, which moves; `
      + 'use a version tag or a digest (@sha256:...)',
    `${P}.containers[1].image: container 'b': image 'redis:latest' uses the tag 'latest', which moves; pin a version tag or a digest (@sha256:...)`,
    `${P}.containers[2].image: container 'c': image 'redis@sha256:abc' has a malformed sha256 digest (3 characters, 64 lower-case hex digits `
      + 'expected); copy the full digest from the registry',
    `${P}.containers[3].image: container 'd': image 'localhost:5000/redis' is not pinned: without a tag it pulls :latest, which moves; `
      + 'use a version tag or a digest (@sha256:...)',
  ]);
});

test('fails on missing requests and memory limit (init containers too), a 400m memory, and requests above limits', () => {
  const spec = podSpec({
    initContainers: [container({ name: 'init', resources: { requests: { cpu: '10m' } } })],
    containers: [container({ resources: { requests: { cpu: '2', memory: '400m' }, limits: { cpu: '1', memory: '1Gi' } } })],
  });
  expect(problemsOfObjects(deployment(spec))).toEqual([
    `${P}.containers[0].resources.requests.cpu: container 'app': cpu request '2' is above its limit '1'; the API server rejects it. `
      + 'Lower the request or raise the limit',
    `${P}.containers[0].resources.requests.memory: container 'app': memory '400m' is 0.4 bytes: the 'm' suffix means thousandths for bytes; `
      + "write '400Mi'",
    `${P}.initContainers[0].resources: container 'init' has no requests.memory, limits.memory; set CPU and memory requests and a memory limit `
      + 'so the scheduler can place it and a leak cannot starve the node',
  ]);
});

test('compares quantities exactly across suffixes', () => {
  expect(withContainers(container({ resources: { requests: { cpu: '10m', memory: '1Gi' }, limits: { memory: '1024Mi' } } }))).toEqual([]);
  expect(withContainers(container({ resources: { requests: { cpu: '10m', memory: '2Gi' }, limits: { memory: '1024Mi' } } }))).toEqual([
    `${P}.containers[0].resources.requests.memory: container 'app': memory request '2Gi' is above its limit '1024Mi'; the API server rejects it. `
      + 'Lower the request or raise the limit',
  ]);
});

test('fails on a Job or CronJob without activeDeadlineSeconds', () => {
  const noDeadline = job();
  delete (noDeadline.spec as Record<string, unknown>).activeDeadlineSeconds;
  const cron = {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cron', namespace: 'apps' },
    spec: { schedule: '@daily', jobTemplate: { spec: { template: { spec: podSpec({ restartPolicy: 'Never' }) } } } },
  };
  expect(problemsOfObjects(noDeadline, cron)).toEqual([
    'm.yaml: Job apps/job: spec.activeDeadlineSeconds: Job has no activeDeadlineSeconds, so a stuck run never ends and blocks whatever waits '
      + 'for it; set a deadline',
    'm.yaml: CronJob apps/cron: spec.jobTemplate.spec.activeDeadlineSeconds: CronJob has no activeDeadlineSeconds, so a stuck run never ends '
      + 'and blocks whatever waits for it; set a deadline',
  ]);
});

test('applies container rules to the containers of a patch: a new container (with an image) meets them all on its own', () => {
  const patch = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'up' },
    spec: {
      selector: {},
      template: {
        spec: {
          volumes: [{ name: 'h', hostPath: { path: '/' } }],
          containers: [
            { name: 'existing', env: [{ name: 'A', value: 'b' }] },
            {
              name: 'sidecar', image: 'x:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              resources: { requests: { cpu: '1m', memory: '1Mi' }, limits: { memory: '1Mi' } },
            },
            { name: 'existing2', securityContext: { allowPrivilegeEscalation: true }, resources: { requests: { memory: '5m' } } },
          ],
        },
      },
    },
  };
  const Q = 'k/patch.yaml: Deployment argocd/up (patch): spec.template.spec';
  expect(problemsOf({
    'k/kustomization.yaml': 'namespace: argocd\nresources:\n  - https://example.com/install.yaml\npatches:\n  - path: patch.yaml\n',
    'k/patch.yaml': [patch],
  })).toEqual([
    `${Q}.containers[1].securityContext.runAsNonRoot: container 'sidecar' may run as root: runAsNonRoot is set neither on it nor on the pod `
      + '(a patch cannot rely on the upstream pod); set securityContext.runAsNonRoot: true',
    `${Q}.containers[1].securityContext.seccompProfile: container 'sidecar' has no seccomp profile, on it or on the pod `
      + '(a patch cannot rely on the upstream pod); set securityContext.seccompProfile.type: RuntimeDefault',
    `${Q}.containers[2].resources.requests.memory: container 'existing2': memory '5m' is 0.005 bytes: the 'm' suffix means thousandths for bytes; `
      + "write '5Mi'",
    `${Q}.containers[2].securityContext.allowPrivilegeEscalation: container 'existing2' has allowPrivilegeEscalation true; the restricted profile `
      + 'needs false. Set securityContext.allowPrivilegeEscalation: false',
    `${Q}.volumes[0].hostPath: volume 'h' mounts host path '/', which the baseline profile forbids; use a persistentVolumeClaim or emptyDir`,
  ]);
});

test('fails on a CNPG Cluster without resources or with an unpinned image', () => {
  const cluster = { apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', metadata: { name: 'pg', namespace: 'a' }, spec: { instances: 1, imageName: 'postgres', storage: { size: '1Gi' } } };
  expect(problemsOfObjects(cluster)).toEqual([
    "m.yaml: Cluster a/pg: spec.imageName: PostgreSQL image 'postgres' is not pinned: without a tag it pulls :latest, which moves; "
      + 'use a version tag or a digest (@sha256:...)',
    'm.yaml: Cluster a/pg: spec.resources: the PostgreSQL container has no requests.cpu, requests.memory, limits.memory; set CPU and memory '
      + 'requests and a memory limit so the scheduler can place it and a leak cannot starve the node',
  ]);
});

import { Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { BUILDKIT_HOST, rootlessBuildkitContainer } from '../../lib/constructs/delivery/buildkit-container';
import { ForgejoRunner, ForgejoRunnerProps } from '../../lib/constructs/delivery/forgejo-runner';
import { BuildWorkflowOptions, buildWorkflow, renderBuildWorkflow, workflowScripts } from '../../lib/constructs/delivery/build-workflow';
import { MAX_USER_NAMESPACES, talosRegistryMirrorPatch, talosUserNamespacesPatch } from '../../lib/constructs/delivery/talos-patches';
import { podPeer } from '../../lib/shared/network';

const FORGEJO = {
  inClusterHttpUrl: 'http://forgejo-http.cicd.svc.cluster.local:3000',
  peer: podPeer('cicd', 'forgejo', { 'app.kubernetes.io/name': 'forgejo' }),
  httpPort: 3000,
};

const PROPS: ForgejoRunnerProps = {
  namespace: 'ci',
  forgejo: FORGEJO,
  runnerImage: 'code.forgejo.org/forgejo/runner:12.10.2',
  buildkitImage: 'docker.io/moby/buildkit:v0.32.2-rootless',
  cosignImage: 'ghcr.io/sigstore/cosign/cosign:v3.1.2-dev',
  label: 'buildkit',
  registrationTokenSecret: 'runner-token',
};

function synthRunner(props: Partial<ForgejoRunnerProps> = {}) {
  const chart = Testing.chart();
  const runner = new ForgejoRunner(chart, 'Runner', { ...PROPS, ...props });
  const objects = Testing.synth(chart);
  const deployment = objects.find((o) => o.kind === 'Deployment');
  const configMap = objects.find((o) => o.kind === 'ConfigMap');
  return { runner, deployment, configMap, pod: deployment.spec.template.spec };
}

describe('ForgejoRunner', () => {
  test('no container is privileged, and only buildkitd leaves the restricted profile (Unconfined seccomp and AppArmor)', () => {
    const { pod } = synthRunner();
    const all = [...pod.initContainers, ...pod.containers];
    expect(all.map((c: any) => c.name)).toEqual(['copy-buildctl', 'copy-cosign', 'register', 'runner', 'buildkitd']);
    for (const c of all) {
      expect({ name: c.name, privileged: c.securityContext.privileged }).toEqual({ name: c.name, privileged: false });
      expect({ name: c.name, nonRoot: c.securityContext.runAsNonRoot }).toEqual({ name: c.name, nonRoot: true });
    }
    const buildkitd = pod.containers.find((c: any) => c.name === 'buildkitd');
    expect(buildkitd.securityContext).toEqual({
      runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, privileged: false,
      seccompProfile: { type: 'Unconfined' }, appArmorProfile: { type: 'Unconfined' },
    });
    for (const c of all.filter((x: any) => x.name !== 'buildkitd')) {
      const sc = c.securityContext;
      expect({ name: c.name, seccomp: sc.seccompProfile, escalation: sc.allowPrivilegeEscalation, drop: sc.capabilities })
        .toEqual({ name: c.name, seccomp: { type: 'RuntimeDefault' }, escalation: false, drop: { drop: ['ALL'] } });
    }
  });

  test('the daemon is rootless, without a process sandbox, on a unix socket only; the runner reaches it there', () => {
    const { pod } = synthRunner();
    const buildkitd = pod.containers.find((c: any) => c.name === 'buildkitd');
    expect(buildkitd.image).toBe(PROPS.buildkitImage);
    expect(buildkitd.args).toEqual(['--addr', BUILDKIT_HOST, '--oci-worker-no-process-sandbox']);
    expect(buildkitd.ports).toBeUndefined();
    const runner = pod.containers.find((c: any) => c.name === 'runner');
    expect(runner.env).toContainEqual({ name: 'BUILDKIT_HOST', value: 'unix:///run/user/1000/buildkit/buildkitd.sock' });
    const socketMount = (c: any) => c.volumeMounts.find((m: any) => m.name === 'buildkit-socket')?.mountPath;
    expect(socketMount(runner)).toBe('/run/user/1000/buildkit');
    expect(socketMount(buildkitd)).toBe('/run/user/1000/buildkit');
  });

  test('no node pinning and nothing of the host: no nodeSelector, affinity, tolerations, hostPath or host namespaces', () => {
    const { pod } = synthRunner();
    for (const key of ['nodeSelector', 'affinity', 'tolerations', 'nodeName', 'hostNetwork', 'hostPID', 'hostIPC']) expect(pod[key]).toBeUndefined();
    expect(pod.volumes.every((v: any) => v.hostPath === undefined)).toBe(true);
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  test('registers with the token by Secret reference and the label as a host label; tools copied from the pinned images', () => {
    const { pod, configMap } = synthRunner({ replicas: 2 });
    const register = pod.initContainers.find((c: any) => c.name === 'register');
    expect(register.env).toContainEqual({ name: 'RUNNER_TOKEN', valueFrom: { secretKeyRef: { name: 'runner-token', key: 'token' } } });
    expect(register.env).toContainEqual({ name: 'FORGEJO_URL', value: FORGEJO.inClusterHttpUrl });
    expect(register.command.join(' ')).toContain('forgejo-runner register --no-interactive');
    const config = YAML.parse(configMap.data['config.yaml']);
    expect(config.runner.labels).toEqual(['buildkit:host']);
    expect(config.runner.envs).toEqual({ BUILDKIT_HOST, FORGEJO_URL: FORGEJO.inClusterHttpUrl, PATH: expect.stringMatching(/^\/tools:/) });
    expect(pod.initContainers.find((c: any) => c.name === 'copy-buildctl')).toMatchObject({ image: PROPS.buildkitImage, command: ['cp', '/usr/bin/buildctl', '/tools/buildctl'] });
    expect(pod.initContainers.find((c: any) => c.name === 'copy-cosign')).toMatchObject({ image: PROPS.cosignImage, command: ['/busybox/cp', '/ko-app/cosign', '/tools/cosign'] });
  });

  test('defaults: one replica, the name forgejo-runner, resources from the props', () => {
    const { runner, deployment, pod } = synthRunner();
    expect(runner.replicas).toBe(1);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.metadata.name).toBe('forgejo-runner');
    expect(pod.containers.find((c: any) => c.name === 'buildkitd').resources).toEqual({ requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '4Gi' } });
    expect(pod.containers.find((c: any) => c.name === 'runner').resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '256Mi' } });
  });

  test('its flows: the runner pods to Forgejo\'s HTTP port, and to the registry hosts it pushes to', () => {
    const { runner } = synthRunner({ registryHosts: ['forgejo.example'] });
    expect(runner.networkFlows.map((f) => `${f.from.name} -> ${f.to.kind === 'pods' ? f.to.name : f.to.kind}: ${f.ports.map((p) => p.port).join(',')}`))
      .toEqual(['ci/forgejo-runner -> cicd/forgejo: 3000', 'ci/forgejo-runner -> outside-cluster: 443']);
  });

  test('its Pod Security exception names the BuildKit container and the four fields only', () => {
    const { runner } = synthRunner();
    expect(runner.podSecurityExceptions).toEqual([expect.objectContaining({
      object: 'Deployment/ci/forgejo-runner', container: 'buildkitd',
      fields: ['seccompProfile', 'appArmorProfile', 'allowPrivilegeEscalation', 'capabilities'],
    })]);
  });

  test('throws for a BuildKit image that is not rootless, a bad label and zero replicas', () => {
    expect(() => synthRunner({ buildkitImage: 'docker.io/moby/buildkit:v0.32.2' })).toThrow(
      'test/Runner: \'buildkitImage\' "docker.io/moby/buildkit:v0.32.2" is not a rootless BuildKit image (a \'-rootless\' tag); the other tags ' +
      'run buildkitd as root and need a privileged container.');
    expect(() => synthRunner({ label: 'Build Kit' })).toThrow('test/Runner: \'label\' "Build Kit" is not a runner label');
    expect(() => synthRunner({ replicas: 0 })).toThrow('test/Runner: \'replicas\' must be an integer of at least 1, got 0.');
  });

  test('rootlessBuildkitContainer: probes with buildctl, requests and limit as given', () => {
    const c = rootlessBuildkitContainer({ image: 'i', socketVolume: 's', stateVolume: 'st', cpuRequest: '1', memoryRequest: '2Gi', memoryLimit: '3Gi' });
    expect(c.readinessProbe?.exec?.command).toEqual(['buildctl', 'debug', 'workers']);
    expect(c.volumeMounts).toEqual([{ name: 's', mountPath: '/run/user/1000/buildkit' }, { name: 'st', mountPath: '/home/user/.local/share/buildkit' }]);
  });
});

const WORKFLOW: BuildWorkflowOptions = {
  runnerLabel: 'buildkit',
  pushHost: 'forgejo.example',
  cacheTag: 'buildcache',
  secrets: { cosignKey: 'COSIGN_PRIVATE_KEY', cosignPassword: 'COSIGN_PASSWORD', registryUsername: 'REGISTRY_USERNAME', registryToken: 'REGISTRY_TOKEN' },
};

describe('the build workflow', () => {
  const workflow = buildWorkflow(WORKFLOW);
  const steps = workflow.jobs.build.steps;

  test('runs on the runner label, on pushes to main and version tags', () => {
    expect(workflow.jobs.build['runs-on']).toBe('buildkit');
    expect(workflow.on).toEqual({ push: { branches: ['main'], tags: ['v*'] } });
    expect(workflow.jobs.build.env).toEqual({ REGISTRY: 'forgejo.example', CACHE_TAG: 'buildcache' });
  });

  test('checks out, logs in, builds with buildctl pushing with the registry cache, and signs the digest', () => {
    expect(steps.map((s) => s.name)).toEqual([
      'Check out the pushed commit',
      'Log in to the registry (a job-private DOCKER_CONFIG)',
      'Build and push by digest with rootless BuildKit, cache in the registry',
      'Sign the digest with cosign (key by reference, no transparency log)',
    ]);
    const build = steps[2].run;
    expect(build).toContain('buildctl build --frontend dockerfile.v0');
    expect(build).toContain('push=true');
    expect(build).toContain('--export-cache "type=registry,ref=$IMAGE:$CACHE_TAG,mode=max"');
    expect(build).toContain('--import-cache "type=registry,ref=$IMAGE:$CACHE_TAG"');
    expect(build).toContain('--metadata-file');
    expect(steps[3].run).toBe('cosign sign --yes --use-signing-config=false --tlog-upload=false --key env://COSIGN_PRIVATE_KEY "$IMAGE@$DIGEST"\n');
    expect(steps[3].env).toEqual({
      COSIGN_PRIVATE_KEY: '${{ secrets.COSIGN_PRIVATE_KEY }}', COSIGN_PASSWORD: '${{ secrets.COSIGN_PASSWORD }}',
      IMAGE: '${{ steps.build.outputs.image }}', DIGEST: '${{ steps.build.outputs.digest }}',
    });
  });

  test('never edits a manifest, commits or pushes to git, and never splices a context into a script', () => {
    for (const script of workflowScripts(workflow)) {
      expect(script).not.toMatch(/\b(sed|yq|kustomize|kubectl|helm)\b/);
      expect(script).not.toMatch(/git (commit|push|add|tag)\b/);
      expect(script).not.toContain('${{');
    }
  });

  test('the rendered file says what it is and parses back to the workflow', () => {
    const text = renderBuildWorkflow(WORKFLOW);
    expect(text.startsWith('# Build, push by digest and sign')).toBe(true);
    expect(YAML.parse(text)).toEqual(JSON.parse(JSON.stringify(workflow)));
    expect(renderBuildWorkflow(WORKFLOW)).toBe(text);
  });
});

describe('the Talos patches', () => {
  test('user namespaces: one document setting the sysctl Talos sets to 0', () => {
    const docs = YAML.parseAllDocuments(talosUserNamespacesPatch('k8s/generated/talos/user-namespaces.yaml'));
    expect(docs.map((d) => d.errors)).toEqual([[]]);
    expect(docs.map((d) => d.toJSON())).toEqual([{ machine: { sysctls: { 'user.max_user_namespaces': MAX_USER_NAMESPACES } } }]);
  });

  test('registry mirror: a RegistryMirrorConfig for the pull name, to the node endpoint, without fallback', () => {
    const text = talosRegistryMirrorPatch('talos/registry-mirror.yaml', { pullHost: 'forgejo-http.cicd.svc.cluster.local:3000', nodeEndpoint: 'http://192.168.1.165:3000' });
    const docs = YAML.parseAllDocuments(text);
    expect(docs.map((d) => d.errors)).toEqual([[]]);
    expect(docs.map((d) => d.toJSON())).toEqual([{
      apiVersion: 'v1alpha1', kind: 'RegistryMirrorConfig', name: 'forgejo-http.cicd.svc.cluster.local:3000',
      endpoints: [{ url: 'http://192.168.1.165:3000' }], skipFallback: true,
    }]);
    expect(text).toContain('talosctl patch machineconfig --nodes <node IPs> --patch @talos/registry-mirror.yaml');
  });
});

import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import * as YAML from 'yaml';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { restrictedContainerSecurityContext } from '../../shared/security';
import { ForgejoEndpoint } from '../../shared/git-urls';
import { dnsLabelProblem } from '../../shared/names';
import { INetworkWorkload, NetworkFlow, outsideCluster, podPeer, PodPeer } from '../../shared/network';
import { BUILDKIT_CONTAINER, BUILDKIT_HOST, BUILDKIT_SOCKET_DIR, BUILDKIT_UID, rootlessBuildkitContainer } from './buildkit-container';
import type { PodSecurityException } from '../../shared/pod-security';

/** Properties for `ForgejoRunner`. */
export interface ForgejoRunnerProps {
  /** Namespace of the runner; it must enforce Pod Security `privileged` (see `rootlessBuildkitContainer`). */
  readonly namespace: string;
  /**
   * Name of the Deployment and ConfigMap; also the `app.kubernetes.io/instance` label.
   * @default 'forgejo-runner'
   */
  readonly name?: string;
  /** The Forgejo instance the runner registers with and takes jobs from, at its in-cluster URL. */
  readonly forgejo: ForgejoEndpoint;
  /** The Forgejo runner image (`code.forgejo.org/forgejo/runner:<version>`: Alpine with bash and git, uid 1000). */
  readonly runnerImage: string;
  /** A rootless BuildKit image: the daemon, and where `buildctl` is copied from. */
  readonly buildkitImage: string;
  /** A cosign image with a busybox shell (the `-dev` tags), where `cosign` is copied from. */
  readonly cosignImage: string;
  /** The label jobs name in `runs-on`; registered as `<label>:host` (steps run in the runner container). */
  readonly label: string;
  /** Secret in `namespace` whose key `token` is the registration token. */
  readonly registrationTokenSecret: string;
  /**
   * Runner pods, each with its own daemon.
   * @default 1
   */
  readonly replicas?: number;
  /**
   * Hosts (and ports) outside the cluster the builds push to and pull from, for the network matrix.
   * @default []
   */
  readonly registryHosts?: readonly string[];
  /** @default '100m' */
  readonly runnerCpuRequest?: string;
  /** Request and limit. @default '256Mi' */
  readonly runnerMemory?: string;
  /** @default '500m' */
  readonly buildkitCpuRequest?: string;
  /** @default '1Gi' */
  readonly buildkitMemoryRequest?: string;
  /** @default '4Gi' */
  readonly buildkitMemoryLimit?: string;
}

/** Where the runner keeps `.runner` (its registration) and the jobs' work folders: the image's `HOME` and `WORKDIR`. */
const DATA_DIR = '/data';
/** Where the init containers put `buildctl` and `cosign`, first on the jobs' `PATH`. */
const TOOLS_DIR = '/tools';
/** Where the ConfigMap's `config.yaml` is mounted. */
const CONFIG_DIR = '/etc/forgejo-runner';
const CONFIG_FILE = `${CONFIG_DIR}/config.yaml`;
/** The Alpine image's `PATH`, after the tools. */
const JOB_PATH = `${TOOLS_DIR}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;
/** The key of the registration token in `registrationTokenSecret`. */
const TOKEN_KEY = 'token';

/**
 * A Forgejo Actions runner that builds images without privilege: one Deployment whose pods hold the runner and a
 * rootless BuildKit daemon side by side. Jobs on `label` run their steps in the runner container (`host` label), with
 * `buildctl` and `cosign` on `PATH` (copied by init containers from the pinned images) and `BUILDKIT_HOST` at the
 * daemon's unix socket in a shared `emptyDir`: no Docker, no privileged container, no node pinning, no TCP port.
 * Nothing is cached on the node: builds import and export their cache in the registry (`--export-cache
 * type=registry`), so a pod may start on any node.
 *
 * The registration token comes from a Secret by reference; the init container `register` writes `.runner` once per
 * pod (an `emptyDir`, so a replaced pod registers again and Forgejo lists it as a new runner; delete the offline ones
 * in Forgejo's runner list).
 *
 * @see https://forgejo.org/docs/latest/admin/actions/
 */
export class ForgejoRunner extends Construct implements INetworkWorkload {
  public readonly namespace: string;
  public readonly name: string;
  public readonly label: string;
  public readonly replicas: number;
  public readonly registrationTokenSecret: string;
  public readonly configMap: k8s.KubeConfigMap;
  public readonly deployment: k8s.KubeDeployment;
  private readonly forgejo: ForgejoEndpoint;
  private readonly registryHosts: readonly string[];

  constructor(scope: Construct, id: string, props: ForgejoRunnerProps) {
    super(scope, id);
    this.namespace = props.namespace;
    this.name = props.name ?? 'forgejo-runner';
    this.label = props.label;
    this.replicas = props.replicas ?? 1;
    this.registrationTokenSecret = props.registrationTokenSecret;
    this.forgejo = props.forgejo;
    this.registryHosts = [...new Set(props.registryHosts ?? [])].sort();
    const nameProblem = dnsLabelProblem(this.name);
    if (nameProblem !== undefined) throw new Error(`${this.node.path}: 'name' ${JSON.stringify(this.name)} is not a valid object name: ${nameProblem}.`);
    if (!Number.isInteger(this.replicas) || this.replicas < 1) {
      throw new Error(`${this.node.path}: 'replicas' must be an integer of at least 1, got ${this.replicas}.`);
    }
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(this.label)) {
      throw new Error(`${this.node.path}: 'label' ${JSON.stringify(this.label)} is not a runner label; use lower-case letters, digits, '.', '_' and '-'.`);
    }
    if (!/:[^:@/]*-rootless(@sha256:[0-9a-f]{64})?$/.test(props.buildkitImage)) {
      throw new Error(`${this.node.path}: 'buildkitImage' ${JSON.stringify(props.buildkitImage)} is not a rootless BuildKit image (a '-rootless' tag); ` +
        'the other tags run buildkitd as root and need a privileged container.');
    }

    const labels = selectorLabels('forgejo-runner', this.name);
    const metadata = { name: this.name, namespace: this.namespace, labels: { ...COMMON_LABELS, ...labels } };
    this.configMap = new k8s.KubeConfigMap(this, 'Config', {
      metadata,
      data: { 'config.yaml': YAML.stringify(this.runnerConfig(), { lineWidth: 0 }) },
    });

    const restricted = restrictedContainerSecurityContext(BUILDKIT_UID);
    const volumes = {
      data: { name: 'data', mountPath: DATA_DIR },
      tools: { name: 'tools', mountPath: TOOLS_DIR },
      config: { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
      tmp: { name: 'tmp', mountPath: '/tmp' },
    };
    const small: k8s.ResourceRequirements = {
      requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('32Mi') },
      limits: { memory: k8s.Quantity.fromString('128Mi') },
    };
    const runnerMemory = k8s.Quantity.fromString(props.runnerMemory ?? '256Mi');

    this.deployment = new k8s.KubeDeployment(this, 'Resource', {
      metadata,
      spec: {
        replicas: this.replicas,
        selector: { matchLabels: labels },
        // A runner takes one job at a time; a new pod registers and starts taking jobs before the old one goes.
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: k8s.IntOrString.fromNumber(1), maxUnavailable: k8s.IntOrString.fromNumber(0) } },
        template: {
          metadata: { labels: { ...COMMON_LABELS, ...labels } },
          spec: {
            // The jobs need no Kubernetes API: no token in the pod for a workflow to read.
            automountServiceAccountToken: false,
            securityContext: { fsGroup: BUILDKIT_UID, runAsNonRoot: true },
            initContainers: [
              {
                name: 'copy-buildctl',
                image: props.buildkitImage,
                command: ['cp', '/usr/bin/buildctl', `${TOOLS_DIR}/buildctl`],
                securityContext: restricted,
                resources: small,
                volumeMounts: [volumes.tools],
              },
              {
                // ko puts the binary at /ko-app/<name>; the `-dev` image's distroless debug base has busybox.
                name: 'copy-cosign',
                image: props.cosignImage,
                command: ['/busybox/cp', '/ko-app/cosign', `${TOOLS_DIR}/cosign`],
                securityContext: restricted,
                resources: small,
                volumeMounts: [volumes.tools],
              },
              {
                name: 'register',
                image: props.runnerImage,
                // `register` writes `runner.file`; a container restart keeps it (the emptyDir outlives the container).
                command: ['bash', '-c', [
                  `if [ -s ${DATA_DIR}/.runner ]; then exit 0; fi`,
                  `exec forgejo-runner register --no-interactive --config ${CONFIG_FILE} --instance "$FORGEJO_URL" --token "$RUNNER_TOKEN" --name "$RUNNER_NAME"`,
                ].join('\n')],
                env: [
                  { name: 'FORGEJO_URL', value: this.forgejo.inClusterHttpUrl },
                  { name: 'RUNNER_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                  { name: 'RUNNER_TOKEN', valueFrom: { secretKeyRef: { name: this.registrationTokenSecret, key: TOKEN_KEY } } },
                ],
                securityContext: restricted,
                resources: small,
                volumeMounts: [volumes.data, volumes.config, volumes.tmp],
              },
            ],
            containers: [
              {
                name: 'runner',
                image: props.runnerImage,
                command: ['forgejo-runner', 'daemon', '--config', CONFIG_FILE],
                env: [{ name: 'PATH', value: JOB_PATH }, { name: 'BUILDKIT_HOST', value: BUILDKIT_HOST }],
                securityContext: restricted,
                resources: {
                  requests: { cpu: k8s.Quantity.fromString(props.runnerCpuRequest ?? '100m'), memory: runnerMemory },
                  limits: { memory: runnerMemory },
                },
                volumeMounts: [volumes.data, volumes.tools, volumes.config, volumes.tmp, { name: 'buildkit-socket', mountPath: BUILDKIT_SOCKET_DIR }],
              },
              rootlessBuildkitContainer({
                image: props.buildkitImage,
                socketVolume: 'buildkit-socket',
                stateVolume: 'buildkit-state',
                cpuRequest: props.buildkitCpuRequest ?? '500m',
                memoryRequest: props.buildkitMemoryRequest ?? '1Gi',
                memoryLimit: props.buildkitMemoryLimit ?? '4Gi',
              }),
            ],
            volumes: [
              { name: 'data', emptyDir: {} },
              { name: 'tools', emptyDir: { sizeLimit: k8s.Quantity.fromString('512Mi') } },
              { name: 'tmp', emptyDir: {} },
              { name: 'config', configMap: { name: this.configMap.name } },
              { name: 'buildkit-socket', emptyDir: { sizeLimit: k8s.Quantity.fromString('1Mi') } },
              { name: 'buildkit-state', emptyDir: {} },
            ],
          },
        },
      },
    });
  }

  /**
   * What the BuildKit container needs beyond the restricted profile (see `rootlessBuildkitContainer`), for the output
   * validation; the runner and init containers meet it.
   */
  public get podSecurityExceptions(): PodSecurityException[] {
    return [{
      object: `Deployment/${this.namespace}/${this.name}`,
      container: BUILDKIT_CONTAINER,
      fields: ['seccompProfile', 'appArmorProfile', 'allowPrivilegeEscalation', 'capabilities'],
      reason: 'rootless BuildKit: unshare and mount need Unconfined seccomp and AppArmor, and RootlessKit\'s setuid newuidmap needs privilege ' +
        'escalation and the capabilities it grants (moby/buildkit v0.32.2 docs/rootless.md); the namespace enforces Pod Security privileged',
    }];
  }

  /** The runner's pods. */
  public get peer(): PodPeer {
    return podPeer(this.namespace, this.name, selectorLabels('forgejo-runner', this.name));
  }

  /**
   * The runner registers with Forgejo, polls it for jobs and clones from it (in-cluster HTTP); the daemon in the same
   * pods pushes images and cache to the registry hosts.
   */
  public get networkFlows(): NetworkFlow[] {
    return [
      {
        from: this.peer, to: this.forgejo.peer, ports: [{ port: this.forgejo.httpPort, name: 'http' }],
        reason: 'ForgejoRunner.forgejo: registers, polls for jobs and clones the repositories',
      },
      ...this.registryHosts.map((host): NetworkFlow => ({
        from: this.peer, to: outsideCluster(`${host} (image registry)`), ports: [{ port: 443, name: 'https' }],
        reason: 'ForgejoRunner: rootless BuildKit pushes images and the registry cache',
      })),
    ];
  }

  /**
   * The runner's `config.yaml` (keys of forgejo/runner `internal/pkg/config/config.example.yaml`): the label as a
   * `host` label, the tools and the daemon's socket in every job's environment, and no cache server (the workflow's
   * cache is the registry's; the actions cache needs JavaScript actions, which `host` jobs without node cannot run).
   */
  private runnerConfig(): Record<string, unknown> {
    return {
      log: { level: 'info', job_level: 'info' },
      runner: {
        file: `${DATA_DIR}/.runner`,
        capacity: 1,
        // FORGEJO_URL: the build workflow clones from Forgejo's in-cluster address, not through the ingress.
        envs: { BUILDKIT_HOST, FORGEJO_URL: this.forgejo.inClusterHttpUrl, PATH: JOB_PATH },
        timeout: '1h',
        labels: [`${this.label}:host`],
      },
      cache: { enabled: false },
      host: { workdir_parent: `${DATA_DIR}/work` },
    };
  }
}

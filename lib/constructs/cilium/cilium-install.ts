import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';
import { HelmReleaseSpec } from '../bootstrap/waits';
import { PHASE0_CHARTS } from '../../shared/pins';

/**
 * A Linux capability the Cilium agent's containers may be granted (chart values `securityContext.capabilities.*`).
 * `SYS_MODULE` is deliberately absent: Talos does not let workloads load kernel modules.
 */
export type CiliumCapability = 'CHOWN' | 'KILL' | 'NET_ADMIN' | 'NET_RAW' | 'IPC_LOCK' | 'SYS_ADMIN' | 'SYS_RESOURCE'
  | 'DAC_OVERRIDE' | 'FOWNER' | 'SETGID' | 'SETUID';

/**
 * The values of the `cilium` chart this program sets, typed: the Talos settings. Everything else keeps the chart's
 * default.
 *
 * @see https://docs.siderolabs.com/kubernetes-guides/cni/deploying-cilium (Talos: "Method 1: Helm install",
 *   without kube-proxy: `ipam.mode=kubernetes`, `kubeProxyReplacement=true`, the capability lists without
 *   `SYS_MODULE`, `cgroup.autoMount.enabled=false`, `cgroup.hostRoot=/sys/fs/cgroup`, `k8sServiceHost=localhost`,
 *   `k8sServicePort=7445` for KubePrism)
 * @see https://docs.cilium.io/en/stable/network/kubernetes/kubeproxy-free/ (`k8sServiceHost`/`k8sServicePort`: the
 *   agent reaches the API server directly, as there is no kube-proxy to serve the `kubernetes` Service)
 */
export interface CiliumValues {
  readonly ipam: { readonly mode: 'kubernetes' };
  readonly kubeProxyReplacement: boolean;
  readonly k8sServiceHost: string;
  readonly k8sServicePort: number;
  readonly securityContext: {
    readonly capabilities: {
      readonly ciliumAgent: readonly CiliumCapability[];
      readonly cleanCiliumState: readonly CiliumCapability[];
    };
  };
  readonly cgroup: { readonly autoMount: { readonly enabled: boolean }; readonly hostRoot: string };
  /** Entities a CIDR / `ipBlock` selector may also select; `['nodes']` lets a NetworkPolicy name the API server by address. */
  readonly policyCIDRMatchMode?: readonly 'nodes'[];
}

/** Properties for `CiliumInstall`. */
export interface CiliumInstallProps {
  /**
   * Host the agent reaches the Kubernetes API server at (chart `k8sServiceHost`). On Talos with KubePrism,
   * `localhost`.
   */
  readonly k8sServiceHost: string;
  /** Port of `k8sServiceHost` (chart `k8sServicePort`); KubePrism's default is 7445. */
  readonly k8sServicePort: number;
  /**
   * Cilium replaces kube-proxy (chart `kubeProxyReplacement`); Talos must then run without kube-proxy
   * (`cluster.proxy.disabled: true`).
   * @default true
   */
  readonly kubeProxyReplacement?: boolean;
  /**
   * Let NetworkPolicy `ipBlock`s select node addresses (chart `policyCIDRMatchMode: [nodes]`, since Cilium 1.15). By
   * default Cilium's CIDR selectors "do not match in-cluster entities (pods or nodes)", so a standard NetworkPolicy
   * could not allow a pod to reach the API server, which runs on the control-plane nodes' addresses; with it, "it
   * permits selecting the apiserver via an ipBlock peer in a KubernetesNetworkPolicy".
   * @default false
   * @see https://docs.cilium.io/en/stable/security/policy/language/#selecting-nodes-with-cidr-ipblock
   */
  readonly selectNodesByCidr?: boolean;
  /**
   * How long helm may take for the release (`--timeout`).
   * @default Duration.minutes(10)
   */
  readonly timeout?: Duration;
}

/**
 * Cilium, the CNI, as a Helm release of the pinned chart with the Talos settings: the bootstrap runbook installs it
 * with `helm upgrade --install` before anything that needs a pod network, then waits for the agent DaemonSet and the
 * operator. Defines no objects; the chart's manifests come from helm.
 */
export class CiliumInstall extends Construct implements IBootstrapComponent {
  /** The release the runbook installs (and an Argo CD Application may adopt). */
  public readonly release: HelmReleaseSpec;
  public readonly values: CiliumValues;
  public readonly timeout: Duration;
  /** The agent DaemonSet (chart template `cilium-agent/daemonset.yaml`). */
  public readonly agentDaemonSet = 'cilium';
  /** The operator Deployment (chart template `cilium-operator/deployment.yaml`). */
  public readonly operatorDeployment = 'cilium-operator';

  constructor(scope: Construct, id: string, props: CiliumInstallProps) {
    super(scope, id);
    if (!Number.isInteger(props.k8sServicePort) || props.k8sServicePort < 1 || props.k8sServicePort > 65535) {
      throw new Error(`${this.node.path}: 'k8sServicePort' must be a TCP port (1-65535), got ${props.k8sServicePort}.`);
    }
    if (props.k8sServiceHost.trim() === '') throw new Error(`${this.node.path}: 'k8sServiceHost' must not be empty.`);
    this.timeout = props.timeout ?? Duration.minutes(10);
    this.values = {
      ipam: { mode: 'kubernetes' },
      kubeProxyReplacement: props.kubeProxyReplacement ?? true,
      k8sServiceHost: props.k8sServiceHost,
      k8sServicePort: props.k8sServicePort,
      securityContext: {
        capabilities: {
          ciliumAgent: ['CHOWN', 'KILL', 'NET_ADMIN', 'NET_RAW', 'IPC_LOCK', 'SYS_ADMIN', 'SYS_RESOURCE', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID'],
          cleanCiliumState: ['NET_ADMIN', 'SYS_ADMIN', 'SYS_RESOURCE'],
        },
      },
      // Talos mounts cgroup v2 itself; the agent must not mount its own.
      cgroup: { autoMount: { enabled: false }, hostRoot: '/sys/fs/cgroup' },
      ...(props.selectNodesByCidr ? { policyCIDRMatchMode: ['nodes'] as const } : {}),
    };
    this.release = {
      ...PHASE0_CHARTS.cilium,
      releaseName: 'cilium',
      namespace: 'kube-system',
      createNamespace: false,
      values: this.values,
      timeoutSeconds: this.timeout.toSeconds(),
    };
  }

  public get bootstrapRequirements(): BootstrapRequirements {
    const timeoutSeconds = this.timeout.toSeconds();
    return {
      helmRelease: this.release,
      waits: [
        { kind: 'daemonset-rollout', namespace: this.release.namespace, daemonSet: this.agentDaemonSet, timeoutSeconds },
        { kind: 'rollout', namespace: this.release.namespace, deployment: this.operatorDeployment, timeoutSeconds },
      ],
    };
  }
}

import { ResolvedHomelabConfig } from '../config/homelab-config';
import { BootstrapPlan } from '../homelab/bootstrap-plan';
import { DEFAULT_DENY_POLICY } from '../constructs/network/network-isolation';
import { NetworkPort, peerName } from '../shared/network';

/**
 * The connectivity matrix: which workload may open a connection to which, on which ports, why (the typed reference that
 * produced the flow) and which NetworkPolicies allow it. Derived from the synthesized program, so it is exactly what
 * the Phase-0 policies enforce.
 */

/** One allowed flow. */
export interface PlannedFlow {
  readonly from: string;
  readonly to: string;
  /** `5432/TCP (postgresql)`, comma-separated. */
  readonly ports: string;
  /** The reference that produced the flow. */
  readonly reason: string;
  /** The policies (namespace/name) that allow it: egress at the source, ingress at the target; empty when neither end is isolated. */
  readonly allowedBy: readonly string[];
}

/** The network isolation part of the plan. */
export interface PlannedNetwork {
  /** Whether `network.isolatePhase0` is on. */
  readonly enabled: boolean;
  /** Namespaces with a default-deny policy, sorted. */
  readonly isolatedNamespaces: readonly string[];
  /** The API server's addresses and port, as the policies allow them. */
  readonly kubernetesApi: string;
  /** Excluded from "outside the cluster". */
  readonly clusterCidrs: readonly string[];
  readonly flows: readonly PlannedFlow[];
  /**
   * Applications of the config that deliver into a default-deny namespace without `network`: pods they run there can
   * connect nowhere and accept nothing, sorted.
   */
  readonly unconnectedApplications: readonly { readonly name: string; readonly namespace: string }[];
}

/** What a default-deny namespace means, for the plan's readers. */
export const ISOLATION_SUMMARY = 'Every namespace that holds a Phase-0 workload has a ' + `\`${DEFAULT_DENY_POLICY}\` NetworkPolicy (ingress and ` +
  'egress): a pod there opens and accepts only the connections below, each produced from a typed reference between ' +
  'constructs. Workloads that open any connection may also resolve names (cluster DNS, port 53). Kubelet probes are ' +
  'allowed regardless (node traffic to its own pods). Namespaces not listed keep their charts\' own policies.';

/** The network plan of a synthesized homelab. */
export function planNetwork(config: ResolvedHomelabConfig, bootstrap: BootstrapPlan): PlannedNetwork {
  const network = bootstrap.network;
  const api = `${config.network.kubernetesApiCidrs.join(', ')} port ${config.network.kubernetesApiPort}`;
  if (!network) return { enabled: false, isolatedNamespaces: [], kubernetesApi: api, clusterCidrs: [], flows: [], unconnectedApplications: [] };
  const apps = config.argocd.applications;
  return {
    enabled: true,
    isolatedNamespaces: network.isolatedNamespaces,
    kubernetesApi: api,
    clusterCidrs: network.clusterCidrs,
    flows: network.flows.map((f) => ({
      from: peerName(f.from),
      to: peerName(f.to) + (f.to.kind === 'kubernetes-api' ? ` (${api})` : ''),
      ports: f.allPorts ? 'every port' : f.ports.map(describePort).join(', '),
      reason: f.reason,
      allowedBy: [...new Set([f.egressPolicy, f.ingressPolicy].filter((p): p is string => p !== undefined))],
    })),
    unconnectedApplications: Object.keys(apps).sort()
      .filter((name) => apps[name].network === undefined && network.isIsolated(apps[name].namespace))
      .map((name) => ({ name, namespace: apps[name].namespace })),
  };
}

function describePort(p: NetworkPort): string {
  return `${p.port}/${p.protocol ?? 'TCP'}${p.name ? ` (${p.name})` : ''}`;
}

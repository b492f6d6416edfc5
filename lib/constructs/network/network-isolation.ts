import { ApiObject, Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import { COMMON_LABELS } from '../../shared/labels';
import {
  INetworkWorkload, NetworkFlow, NetworkPeer, NetworkPort, peerName, PodPeer,
} from '../../shared/network';

/** The cluster DNS pods, which every isolated workload that opens a connection resolves names with. */
export interface ClusterDns {
  readonly namespace: string;
  readonly podSelector: Readonly<Record<string, string>>;
  readonly port: number;
}

/** Properties for `NetworkIsolation`. */
export interface NetworkIsolationProps {
  /**
   * Namespaces that get a default-deny NetworkPolicy (ingress and egress), in this construct's chart: only the flows
   * added here are allowed in them. More with `isolateNamespace()`.
   * @default []
   */
  readonly isolatedNamespaces?: readonly string[];
  /**
   * Addresses (CIDRs) pods reach the Kubernetes API server at, and the API server calls admission webhooks from: the
   * endpoints of the `kubernetes` Service (the control-plane nodes), not its ClusterIP, because policies apply to
   * the backend a Service translates to.
   */
  readonly kubernetesApiCidrs: readonly string[];
  /** The API server's port on those addresses. @default 6443 */
  readonly kubernetesApiPort?: number;
  /**
   * The cluster's pod and Service CIDRs: excluded from "outside the cluster", so an allow to GitHub on 443 is not also
   * an allow to every pod on 443.
   */
  readonly clusterCidrs: readonly string[];
  /** @default - CoreDNS as Talos and kubeadm deploy it: `k8s-app: kube-dns` in `kube-system`, port 53 */
  readonly clusterDns?: ClusterDns;
}

/** A flow with where it is enforced: at the source's egress, the target's ingress, both, or neither. */
export interface EnforcedFlow extends NetworkFlow {
  /** The NetworkPolicy (namespace/name) that allows it as egress at `from`, when `from` is in an isolated namespace. */
  readonly egressPolicy?: string;
  /** The NetworkPolicy (namespace/name) that allows it as ingress at `to`, when `to` is in an isolated namespace. */
  readonly ingressPolicy?: string;
}

/** The name of the default-deny policy of every isolated namespace. */
export const DEFAULT_DENY_POLICY = 'default-deny';
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * Default-deny network isolation for a set of namespaces, and the allows that open exactly the flows added with
 * `addFlow()` / `addWorkload()`. Defines one `default-deny` NetworkPolicy per isolated namespace (selects every pod,
 * both policy types, no rule) and one `allow-<workload>` NetworkPolicy per workload of an isolated namespace that
 * takes part in a flow: its ingress rules are the flows that end there, its egress rules the flows that start there,
 * plus DNS when it opens any connection. NetworkPolicies are additive (a connection is allowed when any policy
 * selecting the pod allows it, at both ends), so this never narrows what another policy (Argo CD's own) allows.
 *
 * Standard `networking.k8s.io/v1` NetworkPolicy, not a CNI's own kind: it reads the same on every CNI and can be
 * checked statically. On Cilium, `ipBlock` selects node addresses (the API server's) only with
 * `policyCIDRMatchMode: [nodes]`; `CiliumInstall` sets it.
 *
 * @see https://kubernetes.io/docs/concepts/services-networking/network-policies/
 */
export class NetworkIsolation extends Construct {
  private readonly namespaces: Set<string>;
  public readonly kubernetesApiCidrs: readonly string[];
  public readonly kubernetesApiPort: number;
  public readonly clusterCidrs: readonly string[];
  public readonly clusterDns: ClusterDns;
  private readonly _flows: NetworkFlow[] = [];
  private readonly workloads = new Map<string, PodPeer>();
  private readonly policies = new Map<string, ApiObject>();
  private readonly placements = new Map<string, Construct>();

  constructor(scope: Construct, id: string, props: NetworkIsolationProps) {
    super(scope, id);
    this.namespaces = new Set();
    this.kubernetesApiCidrs = [...props.kubernetesApiCidrs];
    this.kubernetesApiPort = props.kubernetesApiPort ?? 6443;
    this.clusterCidrs = [...props.clusterCidrs];
    this.clusterDns = props.clusterDns ?? { namespace: 'kube-system', podSelector: { 'k8s-app': 'kube-dns' }, port: 53 };
    if (this.kubernetesApiCidrs.length === 0) {
      throw new Error(`${this.node.path}: 'kubernetesApiCidrs' must name at least one CIDR (the API server's endpoints); without one, ` +
        'no isolated pod could reach the API server.');
    }
    for (const namespace of props.isolatedNamespaces ?? []) this.isolateNamespace(namespace);
  }

  /** Namespaces with a default-deny policy, sorted. */
  public get isolatedNamespaces(): string[] {
    return [...this.namespaces].sort();
  }

  /**
   * Makes `namespace` default-deny, writing the policy in `scope` (the first step that applies a workload there), or in
   * this construct's chart. The first call for a namespace wins. Never put it in the chart that creates the namespace:
   * a server-side dry-run of that chart on a cluster without the namespace is refused ("namespaces ... not found").
   */
  public isolateNamespace(namespace: string, scope?: Construct): void {
    if (this.namespaces.has(namespace)) return;
    this.namespaces.add(namespace);
    new ApiObject(scope ?? this, `DefaultDeny-${namespace}`, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: DEFAULT_DENY_POLICY, namespace, labels: { ...COMMON_LABELS } },
      spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
    });
  }

  /** Whether pods of `namespace` are default-deny. */
  public isIsolated(namespace: string | undefined): boolean {
    return namespace !== undefined && this.namespaces.has(namespace);
  }

  /**
   * Writes the allow policy of `workload` in `scope` (the step that applies the workload), not in this construct's
   * chart. Call it before adding the workload's flows.
   */
  public place(workload: PodPeer, scope: Construct): void {
    if (this.policies.has(workload.name)) throw new Error(`${this.node.path}: the policy of '${workload.name}' is already defined; place it before adding its flows`);
    this.placements.set(workload.name, scope);
  }

  /** Adds every flow `workload`'s props imply. */
  public addWorkload(workload: INetworkWorkload): void {
    for (const flow of workload.networkFlows) this.addFlow(flow);
  }

  /** Allows `flow`: as egress at its source and ingress at its target, wherever that end is isolated. */
  public addFlow(input: NetworkFlow): void {
    // A construct does not know the API server's port (the config does): a flow to it takes this one's.
    const flow = input.to.kind === 'kubernetes-api' ? { ...input, ports: this.kubernetesApiPorts } : input;
    if (flow.allPorts && flow.ports.length > 0) throw new Error(`${this.node.path}: flow '${flow.reason}' names ports and allPorts`);
    if (flow.ports.length === 0 && !flow.allPorts) throw new Error(`${this.node.path}: flow '${flow.reason}' names no port; every allow is for named ports only`);
    for (const end of [flow.from, flow.to]) {
      if (end.kind === 'pods' && this.isIsolated(end.namespace)) this.policyFor(end);
    }
    this._flows.push(flow);
  }

  /** Every flow added, sorted by source, target and reason, with the policies that allow it. */
  public get flows(): EnforcedFlow[] {
    return [...this._flows]
      .map((f) => ({
        ...f,
        egressPolicy: this.policyOf(f.from),
        ingressPolicy: this.policyOf(f.to),
      }))
      .sort((a, b) => compare(peerName(a.from), peerName(b.from)) || compare(peerName(a.to), peerName(b.to)) || compare(a.reason, b.reason));
  }

  /** `namespace/name` of the allow policy that selects `peer`, when it is a workload of an isolated namespace. */
  private policyOf(peer: NetworkPeer): string | undefined {
    return peer.kind === 'pods' && this.isIsolated(peer.namespace) ? `${peer.namespace}/${policyName(peer)}` : undefined;
  }

  /** The allow policy of a workload, defined on first use; its rules are rendered from the flows at synth time. */
  private policyFor(workload: PodPeer): ApiObject {
    const known = this.workloads.get(workload.name);
    if (known && (known.namespace !== workload.namespace || !sameLabels(known.podSelector, workload.podSelector))) {
      throw new Error(`${this.node.path}: two workloads are named '${workload.name}' with different pods; give each its own name`);
    }
    const existing = this.policies.get(workload.name);
    if (existing) return existing;
    this.workloads.set(workload.name, workload);
    const policy = new ApiObject(this.placements.get(workload.name) ?? this, `NetworkPolicy-${workload.namespace}-${policyName(workload)}`, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: policyName(workload), namespace: workload.namespace, labels: { ...COMMON_LABELS } },
      spec: {
        podSelector: labelSelector(workload.podSelector),
        policyTypes: ['Ingress', 'Egress'],
        ingress: Lazy.any({ produce: () => this.ingressRules(workload) }),
        egress: Lazy.any({ produce: () => this.egressRules(workload) }),
      },
    });
    this.policies.set(workload.name, policy);
    return policy;
  }

  // An empty list is left out, not written as `[]`: the API server stores no empty list, so a `[]` would be written
  // again on every server-side apply (found by the cluster test). Without rules, the policy type still denies all.
  private ingressRules(workload: PodPeer): Record<string, unknown>[] | undefined {
    const rules = this._flows
      .filter((f) => f.to.kind === 'pods' && f.to.name === workload.name)
      .map((f) => ({ from: this.policyPeers(f.from, workload.namespace), ...policyPorts(f) }));
    return rules.length === 0 ? undefined : uniqueSorted(rules);
  }

  private egressRules(workload: PodPeer): Record<string, unknown>[] | undefined {
    const rules = this._flows
      .filter((f) => f.from.kind === 'pods' && f.from.name === workload.name)
      .map((f) => ({ to: this.policyPeers(f.to, workload.namespace), ...policyPorts(f) }));
    if (rules.length === 0) return undefined;
    // Every connection starts with a name lookup (Service names, GitHub, the object store).
    const dns = this.clusterDns;
    rules.push({
      to: [{ namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: dns.namespace } }, podSelector: labelSelector(dns.podSelector) }],
      ...policyPorts({ ports: [{ port: dns.port, protocol: 'UDP' }, { port: dns.port, protocol: 'TCP' }] }),
    });
    return uniqueSorted(rules);
  }

  /** The NetworkPolicyPeers of `peer`, as seen from a policy in `namespace`. */
  private policyPeers(peer: NetworkPeer, namespace: string): Record<string, unknown>[] {
    const inNamespace = (ns: string | undefined) => ns === undefined
      ? { namespaceSelector: {} }
      : ns === namespace ? {} : { namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: ns } } };
    switch (peer.kind) {
      case 'pods':
        return [{ ...inNamespace(peer.namespace), podSelector: labelSelector(peer.podSelector) }];
      case 'selected-pods': {
        const where = inNamespace(peer.namespace);
        // An empty podSelector next to a namespaceSelector means every pod of those namespaces; alone it would mean
        // every pod of the policy's own namespace, so it is spelled out only when it selects something.
        const pods = peer.podSelector ? { podSelector: labelSelector(peer.podSelector) } : {};
        return [{ ...(Object.keys(where).length === 0 && !peer.podSelector ? { podSelector: {} } : where), ...pods }];
      }
      case 'kubernetes-api':
        return this.kubernetesApiCidrs.map((cidr) => ({ ipBlock: { cidr } }));
      case 'cluster-dns':
        return [{
          namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: this.clusterDns.namespace } },
          podSelector: labelSelector(this.clusterDns.podSelector),
        }];
      case 'outside-cluster':
        return [{ ipBlock: { cidr: '0.0.0.0/0', except: [...this.clusterCidrs] } }];
    }
  }

  /** The ports of a flow to the API server are the API server's, whatever the flow names. */
  public get kubernetesApiPorts(): NetworkPort[] {
    return [{ port: this.kubernetesApiPort, name: 'https' }];
  }
}

/**
 * A label selector matching `labels`; `{}` (every pod) when there are none, not `{ matchLabels: {} }`, which the API
 * server stores as `{}`, so it would be written again on every server-side apply (found by the cluster test).
 */
function labelSelector(labels: Readonly<Record<string, string>>): Record<string, unknown> {
  return Object.keys(labels).length === 0 ? {} : { matchLabels: { ...labels } };
}

/** `allow-<workload>`: the part of the peer's name after its namespace. */
function policyName(workload: PodPeer): string {
  const prefix = `${workload.namespace}/`;
  if (!workload.name.startsWith(prefix)) throw new Error(`internal: workload '${workload.name}' must be named '${prefix}<name>'`);
  return `allow-${workload.name.slice(prefix.length)}`;
}

/** The `ports` of a rule; none (every port) for a flow with `allPorts`. */
function policyPorts(flow: Pick<NetworkFlow, 'ports' | 'allPorts'>): { ports?: Record<string, unknown>[] } {
  return flow.allPorts ? {} : { ports: flow.ports.map((p) => ({ port: p.port, protocol: p.protocol ?? 'TCP' })) };
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
}

/** Rules without duplicates, in a stable order (cdk8s sorts object keys, not arrays). */
function uniqueSorted(rules: Record<string, unknown>[]): Record<string, unknown>[] {
  const byKey = new Map(rules.map((r) => [stableJson(r), r]));
  return [...byKey.keys()].sort().map((k) => byKey.get(k)!);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The vocabulary of network isolation: who talks to whom, on which port, and why. Constructs describe the flows
 * their props imply (Forgejo's `database` prop means Forgejo → that cluster on 5432); `NetworkIsolation` turns them
 * into NetworkPolicies; the plan prints them as the connectivity matrix. Plain data, so every layer may use it.
 */

/** A transport protocol a NetworkPolicy port names. */
export type NetworkProtocol = 'TCP' | 'UDP';

/** A port of a flow. */
export interface NetworkPort {
  readonly port: number;
  /** @default 'TCP' */
  readonly protocol?: NetworkProtocol;
  /** What listens there, for the matrix (`postgresql`, `http`). @default - the number alone */
  readonly name?: string;
}

/** The pods of one workload: exactly the labels its Service or controller selects them by. */
export interface PodPeer {
  readonly kind: 'pods';
  /** How the matrix names it, e.g. `cicd/forgejo`. */
  readonly name: string;
  readonly namespace: string;
  readonly podSelector: Readonly<Record<string, string>>;
}

/** Pods matching `podSelector` in every namespace (`namespace` unset) or in one namespace's every pod (`podSelector` unset). */
export interface SelectedPodsPeer {
  readonly kind: 'selected-pods';
  readonly name: string;
  /** @default - every namespace */
  readonly namespace?: string;
  /** @default - every pod of the namespace(s) */
  readonly podSelector?: Readonly<Record<string, string>>;
}

/**
 * A peer outside the pod network, resolved from the config by `NetworkIsolation`: the Kubernetes API server (its
 * endpoints, the control-plane nodes), the cluster DNS, or addresses outside the cluster (GitHub, chart
 * repositories, an off-site object store).
 */
export interface WellKnownPeer {
  readonly kind: 'kubernetes-api' | 'cluster-dns' | 'outside-cluster';
  /** For `outside-cluster`: what is reached there, for the matrix (`github.com (the GitHub seed)`). */
  readonly name?: string;
}

/** One end of a flow. */
export type NetworkPeer = PodPeer | SelectedPodsPeer | WellKnownPeer;

/** A connection one end opens to the other: allowed as egress at `from` and as ingress at `to`. */
export interface NetworkFlow {
  readonly from: NetworkPeer;
  readonly to: NetworkPeer;
  readonly ports: readonly NetworkPort[];
  /** Every port (`ports` is then empty): only for pods of one namespace talking to each other. @default false */
  readonly allPorts?: boolean;
  /** The typed reference that produced the flow, e.g. `ForgejoServer.database (cicd/forgejo-db)`. */
  readonly reason: string;
}

/** A construct whose props imply network flows. */
export interface INetworkWorkload {
  /** The flows this construct's pods open or accept, derived from its props. */
  readonly networkFlows: readonly NetworkFlow[];
}

/** The Kubernetes API server, reached at its endpoints (the `kubernetes` Service's backends). */
export const KUBERNETES_API: WellKnownPeer = { kind: 'kubernetes-api' };

/** A host outside the cluster, named for the matrix. */
export function outsideCluster(name: string): WellKnownPeer {
  return { kind: 'outside-cluster', name };
}

/** How the matrix names a peer. */
export function peerName(peer: NetworkPeer): string {
  switch (peer.kind) {
    case 'pods': return peer.name;
    case 'selected-pods': return peer.name;
    case 'kubernetes-api': return 'Kubernetes API server';
    case 'cluster-dns': return 'cluster DNS';
    case 'outside-cluster': return peer.name ? `outside the cluster: ${peer.name}` : 'outside the cluster';
  }
}

/** The port of an `http(s)://` or `ssh://`/scp-style URL, as a flow port. */
export function urlPort(url: string): NetworkPort {
  const scp = /^[^/@\s]+@[^:/\s]+:/.exec(url);
  if (scp) return { port: 22, name: 'ssh' };
  const u = new URL(url);
  const fallback = u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : u.protocol === 'ssh:' ? 22 : undefined;
  const port = u.port ? Number(u.port) : fallback;
  if (port === undefined) throw new Error(`internal: no port known for URL scheme '${u.protocol}' of ${url}`);
  return { port, name: u.protocol.replace(':', '') };
}

/** The host of an `http(s)://`, `ssh://` or scp-style URL. */
export function urlHost(url: string): string {
  const scp = /^[^/@\s]+@([^:/\s]+):/.exec(url);
  return scp ? scp[1] : new URL(url).hostname;
}

/**
 * The peer an URL reaches: a Service's pods when the host is an in-cluster Service name (`<svc>.<ns>.svc…`), whose
 * selector is not known here, so every pod of that namespace; else outside the cluster.
 */
export function urlPeer(url: string, what: string): NetworkPeer {
  const host = urlHost(url);
  const inCluster = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(\.cluster\.local)?$/.exec(host);
  if (inCluster) return { kind: 'selected-pods', name: `${inCluster[2]}/* (${what}, Service ${inCluster[1]})`, namespace: inCluster[2] };
  return outsideCluster(`${host} (${what})`);
}

/** The pods of workload `name` in `namespace`, selected exactly by `podSelector`. */
export function podPeer(namespace: string, name: string, podSelector: Readonly<Record<string, string>>): PodPeer {
  return { kind: 'pods', name: `${namespace}/${name}`, namespace, podSelector: { ...podSelector } };
}

/** Why `value` is not an IPv4 CIDR in canonical form (`192.168.1.0/24`, host bits zero), or undefined. */
export function ipv4CidrProblem(value: string): string | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  const example = 'an IPv4 CIDR such as \'192.168.1.0/24\' or \'192.168.1.10/32\'';
  if (!m) return `'${value}' is not ${example}.`;
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  if (octets.some((o, i) => o > 255 || String(o) !== m[i + 1]) || prefix > 32) return `'${value}' is not ${example}.`;
  const address = octets.reduce((a, o) => a * 256 + o, 0);
  const hostBits = 2 ** (32 - prefix);
  if (address % hostBits !== 0) {
    const base = Math.floor(address / hostBits) * hostBits;
    const canonical = [24, 16, 8, 0].map((s) => Math.floor(base / 2 ** s) % 256).join('.');
    return `'${value}' has host bits set; write '${canonical}/${prefix}' (the network the prefix covers), so the policy reads as what it matches.`;
  }
  return undefined;
}

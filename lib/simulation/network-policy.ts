/**
 * A static evaluation of Kubernetes NetworkPolicy (networking.k8s.io/v1): given the policies as cdk8s synthesizes them
 * (`KubeNetworkPolicy.toJson()`), the namespaces and one flow (pod or IP address → pod or IP address, port, protocol),
 * it decides whether the flow is allowed and says why, on both ends.
 *
 * Sources, quoted where a rule is implemented:
 * - [concept] https://kubernetes.io/docs/concepts/services-networking/network-policies/
 * - [api] the v1.30 API reference of NetworkPolicySpec, NetworkPolicyPeer, IPBlock and NetworkPolicyPort, generated
 *   from kubernetes/api v0.30.0 `networking/v1/types.go` (read at that tag);
 *   https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.30/#networkpolicy-v1-networking-k8s-io
 * - [defaults] the API server's defaulting, kubernetes/kubernetes `pkg/apis/networking/v1/defaults.go`
 *   (`SetDefaults_NetworkPolicy`, `SetDefaults_NetworkPolicyPort`).
 *
 * Pure functions: no cdk8s, no I/O. What the API leaves to the network plugin is an explicit, documented choice here
 * (see `NetworkPolicyEvaluationOptions.ipBlockMatchesPods`).
 */
import { BlockList, isIP } from 'net';

// ---------------------------------------------------------------------------------------------------------------
// The policy JSON, as `KubeNetworkPolicy.toJson()` writes it (camelCase, ports as number or name).
// ---------------------------------------------------------------------------------------------------------------

/** A label selector requirement (metav1.LabelSelectorRequirement). */
export interface LabelSelectorRequirementJson {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** A label selector (metav1.LabelSelector): `matchLabels` and `matchExpressions`, ANDed. */
export interface LabelSelectorJson {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirementJson[];
}

/** An IP block of a peer: a CIDR, minus the `except` CIDRs. */
export interface IpBlockJson {
  readonly cidr: string;
  readonly except?: readonly string[];
}

/** One peer of a `from` or `to` list. */
export interface NetworkPolicyPeerJson {
  readonly podSelector?: LabelSelectorJson;
  readonly namespaceSelector?: LabelSelectorJson;
  readonly ipBlock?: IpBlockJson;
}

/** One port of a rule: a number or a container port's name, a protocol, an optional range end. */
export interface NetworkPolicyPortJson {
  readonly protocol?: string;
  readonly port?: number | string;
  readonly endPort?: number;
}

/** An ingress rule: traffic matching both `from` and `ports`. */
export interface NetworkPolicyIngressRuleJson {
  readonly from?: readonly NetworkPolicyPeerJson[];
  readonly ports?: readonly NetworkPolicyPortJson[];
}

/** An egress rule: traffic matching both `to` and `ports`. */
export interface NetworkPolicyEgressRuleJson {
  readonly to?: readonly NetworkPolicyPeerJson[];
  readonly ports?: readonly NetworkPolicyPortJson[];
}

/** A NetworkPolicy object as JSON. */
export interface NetworkPolicyJson {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec?: {
    readonly podSelector?: LabelSelectorJson;
    readonly policyTypes?: readonly string[];
    readonly ingress?: readonly NetworkPolicyIngressRuleJson[];
    readonly egress?: readonly NetworkPolicyEgressRuleJson[];
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The model of the cluster and the flow.
// ---------------------------------------------------------------------------------------------------------------

/** The L4 protocols a NetworkPolicyPort names ([api] NetworkPolicyPort.protocol: "TCP, UDP, or SCTP"). */
export type NetworkProtocol = 'TCP' | 'UDP' | 'SCTP';

/** A namespace and its labels. */
export interface NamespaceModel {
  readonly name: string;
  /**
   * The namespace's labels.
   *
   * @default - only `kubernetes.io/metadata.name: <name>`, which the API server sets on every namespace
   * (https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-metadata-name); it is added
   * to whatever is given here, as the API server does.
   */
  readonly labels?: Readonly<Record<string, string>>;
}

/** A named container port of a pod, what a named port in a policy resolves to. */
export interface ContainerPortModel {
  readonly name: string;
  readonly containerPort: number;
  /** @default 'TCP' (core/v1 ContainerPort.protocol) */
  readonly protocol?: NetworkProtocol;
}

/** A pod: where it runs and its labels; a flow endpoint or an entry of `NetworkPolicyEvaluationOptions.pods`. */
export interface PodModel {
  readonly namespace: string;
  /** @default - no labels */
  readonly labels?: Readonly<Record<string, string>>;
  /** Shown in explanations. @default - the labels are shown instead */
  readonly name?: string;
  /** The pod's IP: lets an `{ ip }` endpoint resolve to this pod. @default - none */
  readonly ip?: string;
  /** The pod's named container ports, against which a named policy port resolves. @default - none */
  readonly ports?: readonly ContainerPortModel[];
  /** The node the pod runs on, for the local-node rule of ingress. @default - unknown; no local-node exception */
  readonly node?: string;
}

/** An address outside the pod network: a host on the LAN or the internet, or a node's own address. */
export interface AddressModel {
  readonly ip: string;
  /** When the address is a cluster node's own, its name (traffic from a pod's own node is always admitted). @default - not a node */
  readonly node?: string;
}

/** One end of a flow. */
export type FlowEndpoint = PodModel | AddressModel;

/** A connection attempt: from one end to the other, on a destination port. */
export interface Flow {
  readonly from: FlowEndpoint;
  readonly to: FlowEndpoint;
  /** The destination port number. */
  readonly port: number;
  /** @default 'TCP' */
  readonly protocol?: NetworkProtocol;
}

/** The model the policies are evaluated against. */
export interface NetworkPolicyEvaluationOptions {
  /** Namespaces with labels beyond `kubernetes.io/metadata.name`. @default - every namespace has only that label */
  readonly namespaces?: readonly NamespaceModel[];
  /** Known pods: an `{ ip }` endpoint equal to a pod's `ip` is that pod. @default - none; every `{ ip }` is an address */
  readonly pods?: readonly PodModel[];
  /**
   * Whether an `ipBlock` also matches a pod whose IP lies in its CIDR.
   *
   * The API leaves this open: an ipBlock "should be cluster-external IPs, since Pod IPs are ephemeral and
   * unpredictable" ([concept], "Behavior of to and from selectors"). Cilium, the reference homelab's CNI, gives pods
   * identities and applies CIDR rules only to peers that are not Cilium endpoints (cilium/cilium
   * Documentation/policy/language.rst, "CIDR based": "to or from external services if the remote peer is not an
   * endpoint"), so by default a pod is reachable only through pod and namespace selectors, never through an ipBlock.
   * Set it for a plugin that matches pod IPs (Calico does).
   *
   * @default false
   */
  readonly ipBlockMatchesPods?: boolean;
  /**
   * Whether an `ipBlock` matches a node's own address (an `AddressModel` with `node`), such as the API server's on a
   * control-plane node.
   *
   * Cilium gives node addresses the `host` and `remote-node` identities and, unless its `policy-cidr-match-mode`
   * includes `nodes` (default: empty; "As of v1.15, ipBlock can now optionally select node IPs",
   * https://docs.cilium.io/en/stable/network/kubernetes/policy/), an ipBlock does not select them. The reference
   * homelab's Cilium values leave it unset, so by default an egress to a node address is not admitted by an ipBlock.
   *
   * @default false
   */
  readonly ipBlockMatchesNodes?: boolean;
}

/** The decision on one end of a flow: egress at the source, ingress at the destination. */
export interface DirectionVerdict {
  /** Whether this end is a pod (policies apply only to pods). */
  readonly isPod: boolean;
  /** Whether some policy selecting the pod has this policy type ([concept] "Isolated and Non-isolated Pods"). */
  readonly isolated: boolean;
  /** The policies (`namespace/name`) that isolate the pod in this direction, sorted. */
  readonly isolatedBy: readonly string[];
  /** The policies (`namespace/name`) with a rule that admits the flow, sorted. */
  readonly allowedBy: readonly string[];
  /** The admitting rules, as `namespace/name ingress[i]` or `egress[i]`. */
  readonly allowedByRules: readonly string[];
  readonly allowed: boolean;
  /** One sentence: why this end allows or denies. */
  readonly reason: string;
  /** When denied: for every rule of every isolating policy, why it does not admit the flow. */
  readonly rejectedRules: readonly string[];
}

/** The decision on a flow: allowed iff both ends allow it. */
export interface FlowVerdict {
  readonly flow: Flow;
  readonly allowed: boolean;
  readonly egress: DirectionVerdict;
  readonly ingress: DirectionVerdict;
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation.
// ---------------------------------------------------------------------------------------------------------------

type Direction = 'Ingress' | 'Egress';

const METADATA_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * Whether `flow` is allowed by `policies`, with the reasons on both ends.
 *
 * [concept]: "For a connection from a source pod to a destination pod to be allowed, both the egress policy on the
 * source pod and the ingress policy on the destination pod need to allow the connection. If either side does not
 * allow the connection, it will not happen."
 *
 * Throws, naming the policy and the field, on a policy the API server would refuse or that cannot be evaluated
 * (no namespace, a peer with no selector, an ipBlock with another selector, a bad CIDR, an endPort with a named port).
 */
export function evaluateFlow(
  policies: readonly NetworkPolicyJson[], flow: Flow, options: NetworkPolicyEvaluationOptions = {},
): FlowVerdict {
  if (!Number.isInteger(flow.port) || flow.port < 1 || flow.port > 65535) {
    throw new Error(`flow ${describeEndpoint(flow.from)} -> ${describeEndpoint(flow.to)}: port ${flow.port} is not a port number; use 1-65535.`);
  }
  const checked = policies.map(checkPolicy);
  const model = new ClusterModel(options);
  const resolved: ResolvedFlow = {
    from: model.resolve(flow.from),
    to: model.resolve(flow.to),
    port: flow.port,
    protocol: flow.protocol ?? 'TCP',
  };
  const egress = evaluateDirection(checked, 'Egress', resolved, model);
  const ingress = evaluateDirection(checked, 'Ingress', resolved, model);
  return { flow, allowed: egress.allowed && ingress.allowed, egress, ingress };
}

/** `evaluateFlow` for each flow of a table. */
export function evaluateFlows(
  policies: readonly NetworkPolicyJson[], flows: readonly Flow[], options: NetworkPolicyEvaluationOptions = {},
): FlowVerdict[] {
  return flows.map((flow) => evaluateFlow(policies, flow, options));
}

/** A row of a flow table: a flow and whether it must be allowed. */
export interface ExpectedFlow extends Flow {
  readonly expect: 'allow' | 'deny';
  /** Why the flow must (not) happen, shown when the verdict differs. @default - nothing is shown */
  readonly why?: string;
}

/**
 * The rows of a flow table whose verdict is not the expected one, each as its `explainFlow()` text (with `why`
 * first), so `expect(unexpectedVerdicts(policies, table)).toEqual([])` fails with the reasons.
 */
export function unexpectedVerdicts(
  policies: readonly NetworkPolicyJson[], table: readonly ExpectedFlow[], options: NetworkPolicyEvaluationOptions = {},
): string[] {
  return table.flatMap((row) => {
    const verdict = evaluateFlow(policies, { from: row.from, to: row.to, port: row.port, protocol: row.protocol }, options);
    if (verdict.allowed === (row.expect === 'allow')) return [];
    const why = row.why === undefined ? '' : ` (${row.why})`;
    return [`expected ${row.expect}${why}, got:\n${explainFlow(verdict)}`];
  });
}

/**
 * One line per decision: the verdict of the flow, then egress at the source and ingress at the destination, then,
 * when a side denies, why each rule of its isolating policies does not admit the flow.
 */
export function explainFlow(verdict: FlowVerdict): string {
  const { flow } = verdict;
  const lines = [`${describeEndpoint(flow.from)} -> ${describeEndpoint(flow.to)} ${flow.port}/${flow.protocol ?? 'TCP'}: ${
    verdict.allowed ? 'ALLOWED' : 'DENIED'}`];
  for (const [label, side] of [['egress', verdict.egress], ['ingress', verdict.ingress]] as const) {
    lines.push(`  ${label}: ${side.allowed ? 'allowed' : 'denied'}: ${side.reason}`);
    for (const rejected of side.rejectedRules) lines.push(`    ${rejected}`);
  }
  return lines.join('\n');
}

/** A short, stable description of an endpoint: `ns/name`, `ns/[k=v,...]` or the address. */
export function describeEndpoint(endpoint: FlowEndpoint): string {
  if (!isPod(endpoint)) return endpoint.node === undefined ? endpoint.ip : `${endpoint.ip} (node ${endpoint.node})`;
  if (endpoint.name !== undefined) return `${endpoint.namespace}/${endpoint.name}`;
  const labels = Object.keys(endpoint.labels ?? {}).sort().map((k) => `${k}=${(endpoint.labels ?? {})[k]}`);
  return `${endpoint.namespace}/[${labels.join(',')}]`;
}

/** Whether a label selector selects `labels` (standard label selector semantics; an empty selector selects all). */
export function selectorMatches(selector: LabelSelectorJson, labels: Readonly<Record<string, string>>, where = 'selector'): boolean {
  // metav1.LabelSelector: "The requirements are ANDed", matchLabels being requirements with the operator In.
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((requirement, i) => requirementMatches(requirement, labels, `${where}.matchExpressions[${i}]`));
}

function requirementMatches(requirement: LabelSelectorRequirementJson, labels: Readonly<Record<string, string>>, where: string): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  const values = requirement.values ?? [];
  // metav1.LabelSelectorRequirement: "If the operator is In or NotIn, the values array must be non-empty. If the
  // operator is Exists or DoesNotExist, the values array must be empty."
  switch (requirement.operator) {
    case 'In':
      requireValues(requirement, where, true);
      return has && values.includes(labels[requirement.key]);
    case 'NotIn':
      // apimachinery labels.Requirement.Matches: NotIn matches when the label is absent, too.
      requireValues(requirement, where, true);
      return !has || !values.includes(labels[requirement.key]);
    case 'Exists':
      requireValues(requirement, where, false);
      return has;
    case 'DoesNotExist':
      requireValues(requirement, where, false);
      return !has;
    default:
      throw new Error(`${where}.operator: '${requirement.operator}' is not a label selector operator; use In, NotIn, Exists or DoesNotExist.`);
  }
}

function requireValues(requirement: LabelSelectorRequirementJson, where: string, needed: boolean): void {
  const count = requirement.values?.length ?? 0;
  if (needed && count === 0) throw new Error(`${where}: operator ${requirement.operator} needs at least one value; add 'values'.`);
  if (!needed && count > 0) {
    throw new Error(`${where}: operator ${requirement.operator} takes no values, got ${JSON.stringify(requirement.values)}; remove 'values'.`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Internals.
// ---------------------------------------------------------------------------------------------------------------

interface CheckedPolicy {
  readonly id: string;
  readonly namespace: string;
  readonly podSelector: LabelSelectorJson;
  readonly types: readonly Direction[];
  readonly ingress: readonly CheckedRule[];
  readonly egress: readonly CheckedRule[];
}

interface CheckedRule {
  readonly label: string;
  /** undefined: the list was empty or missing, which matches every peer. */
  readonly peers: readonly CheckedPeer[] | undefined;
  /** undefined: the list was empty or missing, which matches every port. */
  readonly ports: readonly CheckedPort[] | undefined;
}

type CheckedPeer =
  | { readonly kind: 'selector'; readonly podSelector?: LabelSelectorJson; readonly namespaceSelector?: LabelSelectorJson; readonly where: string }
  | { readonly kind: 'ipBlock'; readonly cidr: string; readonly except: readonly string[]; readonly matches: (ip: string) => boolean };

interface CheckedPort {
  readonly protocol: NetworkProtocol;
  readonly port: number | string | undefined;
  readonly endPort: number | undefined;
}

type ResolvedEndpoint =
  | { readonly kind: 'pod'; readonly pod: PodModel; readonly namespaceLabels: Readonly<Record<string, string>> }
  | { readonly kind: 'address'; readonly address: AddressModel };

interface ResolvedFlow {
  readonly from: ResolvedEndpoint;
  readonly to: ResolvedEndpoint;
  readonly port: number;
  readonly protocol: NetworkProtocol;
}

class ClusterModel {
  public readonly ipBlockMatchesPods: boolean;
  public readonly ipBlockMatchesNodes: boolean;
  private readonly namespaceLabels = new Map<string, Readonly<Record<string, string>>>();
  private readonly podsByIp = new Map<string, PodModel>();

  constructor(options: NetworkPolicyEvaluationOptions) {
    this.ipBlockMatchesPods = options.ipBlockMatchesPods ?? false;
    this.ipBlockMatchesNodes = options.ipBlockMatchesNodes ?? false;
    for (const ns of options.namespaces ?? []) {
      if (this.namespaceLabels.has(ns.name)) throw new Error(`namespaces: '${ns.name}' is listed twice; list each namespace once.`);
      this.namespaceLabels.set(ns.name, { ...ns.labels, [METADATA_NAME_LABEL]: ns.name });
    }
    for (const pod of options.pods ?? []) {
      if (pod.ip === undefined) continue;
      const other = this.podsByIp.get(pod.ip);
      if (other !== undefined) {
        throw new Error(`pods: ${describeEndpoint(other)} and ${describeEndpoint(pod)} share the IP ${pod.ip}; give each pod its own.`);
      }
      this.podsByIp.set(pod.ip, pod);
    }
  }

  public labelsOfNamespace(name: string): Readonly<Record<string, string>> {
    return this.namespaceLabels.get(name) ?? { [METADATA_NAME_LABEL]: name };
  }

  public resolve(endpoint: FlowEndpoint): ResolvedEndpoint {
    const pod = isPod(endpoint) ? endpoint : this.podsByIp.get(endpoint.ip);
    if (pod !== undefined) return { kind: 'pod', pod, namespaceLabels: this.labelsOfNamespace(pod.namespace) };
    if (isIP((endpoint as AddressModel).ip) === 0) throw new Error(`flow: '${(endpoint as AddressModel).ip}' is not an IP address.`);
    return { kind: 'address', address: endpoint as AddressModel };
  }
}

function isPod(endpoint: FlowEndpoint): endpoint is PodModel {
  return (endpoint as PodModel).namespace !== undefined;
}

function checkPolicy(policy: NetworkPolicyJson, index: number): CheckedPolicy {
  const name = policy.metadata?.name;
  const namespace = policy.metadata?.namespace;
  const at = `NetworkPolicy ${namespace ?? '?'}/${name ?? `#${index}`}`;
  if (policy.kind !== undefined && policy.kind !== 'NetworkPolicy') throw new Error(`${at}: kind is '${policy.kind}', not NetworkPolicy.`);
  if (name === undefined) throw new Error(`${at}: metadata.name is missing; every policy needs a name.`);
  // A policy without a namespace lands in whatever namespace kubectl points at; its podSelector and its peers'
  // podSelectors are relative to that namespace ([api] NetworkPolicyPeer.podSelector), so it cannot be evaluated.
  if (namespace === undefined) throw new Error(`${at}: metadata.namespace is missing; set the namespace the policy belongs to.`);
  const spec = policy.spec ?? {};
  // [api] NetworkPolicySpec.podSelector: "This field is NOT optional"; "An empty podSelector matches all pods in
  // this namespace."
  if (spec.podSelector === undefined) throw new Error(`${at}: spec.podSelector is missing; use {} to select every pod of the namespace.`);
  return {
    id: `${namespace}/${name}`,
    namespace,
    podSelector: spec.podSelector,
    types: policyTypes(spec, at),
    ingress: (spec.ingress ?? []).map((rule, i) => checkRule(rule.from, rule.ports, `${at}: spec.ingress[${i}]`, `${namespace}/${name} ingress[${i}]`)),
    egress: (spec.egress ?? []).map((rule, i) => checkRule(rule.to, rule.ports, `${at}: spec.egress[${i}]`, `${namespace}/${name} egress[${i}]`)),
  };
}

/**
 * The policy types after the API server's defaulting. [concept]: "If no policyTypes are specified on a NetworkPolicy
 * then by default Ingress will always be set and Egress will be set if the NetworkPolicy has any egress rules."
 * [defaults] `SetDefaults_NetworkPolicy`: when `len(PolicyTypes) == 0`, Ingress, plus Egress when `len(Egress) != 0`
 * (so `egress: []` does not make a policy an egress policy).
 */
function policyTypes(spec: NonNullable<NetworkPolicyJson['spec']>, at: string): Direction[] {
  if (spec.policyTypes === undefined || spec.policyTypes.length === 0) {
    return (spec.egress ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
  return spec.policyTypes.map((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') throw new Error(`${at}: spec.policyTypes[${i}] is '${t}'; use Ingress or Egress.`);
    return t;
  });
}

function checkRule(
  peers: readonly NetworkPolicyPeerJson[] | undefined, ports: readonly NetworkPolicyPortJson[] | undefined, at: string, label: string,
): CheckedRule {
  const field = label.includes(' ingress[') ? 'from' : 'to';
  return {
    label,
    // [api] NetworkPolicyIngressRule.from / NetworkPolicyEgressRule.to: "If this field is empty or missing, this
    // rule matches all sources" (all destinations).
    peers: peers === undefined || peers.length === 0 ? undefined : peers.map((peer, i) => checkPeer(peer, `${at}.${field}[${i}]`)),
    // [api] ports: "If this field is empty or missing, this rule matches all ports (traffic not restricted by port)."
    ports: ports === undefined || ports.length === 0 ? undefined : ports.map((port, i) => checkPort(port, `${at}.ports[${i}]`)),
  };
}

function checkPeer(peer: NetworkPolicyPeerJson, at: string): CheckedPeer {
  if (peer.ipBlock !== undefined) {
    // [api] NetworkPolicyPeer.ipBlock: "If this field is set then neither of the other fields can be."
    if (peer.podSelector !== undefined || peer.namespaceSelector !== undefined) {
      throw new Error(`${at}: ipBlock cannot be combined with podSelector or namespaceSelector; make them separate peers.`);
    }
    return checkIpBlock(peer.ipBlock, `${at}.ipBlock`);
  }
  // The API server refuses a peer with no field (validation: "must specify a peer"); it would otherwise read as
  // "everything" to a careless evaluator.
  if (peer.podSelector === undefined && peer.namespaceSelector === undefined) {
    throw new Error(`${at}: a peer needs podSelector, namespaceSelector or ipBlock; use namespaceSelector: {} for every pod of the cluster.`);
  }
  return { kind: 'selector', podSelector: peer.podSelector, namespaceSelector: peer.namespaceSelector, where: at };
}

interface ParsedCidr {
  readonly text: string;
  readonly family: 'ipv4' | 'ipv6';
  readonly list: BlockList;
}

function parseCidr(cidr: string, at: string): ParsedCidr {
  const slash = cidr.indexOf('/');
  const address = slash < 0 ? '' : cidr.slice(0, slash);
  const prefixText = slash < 0 ? '' : cidr.slice(slash + 1);
  const version = isIP(address);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (version === 0 || !(prefix >= 0 && prefix <= (version === 4 ? 32 : 128))) {
    throw new Error(`${at}: '${cidr}' is not a CIDR; write an address and a prefix length, e.g. 192.168.1.0/24 or 2001:db8::/64.`);
  }
  const family = version === 4 ? 'ipv4' : 'ipv6';
  // Node's BlockList does the prefix arithmetic for both families (it masks host bits, as Kubernetes' sloppy CIDR
  // parsing accepts them). One list per CIDR, and only same-family addresses are checked against it: Kubernetes
  // never matches an IPv4 address against an IPv6 block.
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return { text: cidr, family, list };
}

function inCidr(cidr: ParsedCidr, ip: string): boolean {
  const family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  return family === cidr.family && cidr.list.check(ip, family);
}

function checkIpBlock(block: IpBlockJson, at: string): CheckedPeer {
  const cidr = parseCidr(block.cidr, `${at}.cidr`);
  const except = (block.except ?? []).map((e, i) => {
    const parsed = parseCidr(e, `${at}.except[${i}]`);
    // [api] IPBlock.except: "Except values will be rejected if they are outside the cidr range".
    const base = e.slice(0, e.indexOf('/'));
    if (parsed.family !== cidr.family || !inCidr(cidr, base)) {
      throw new Error(`${at}.except[${i}]: '${e}' is outside the cidr ${block.cidr}; the API server rejects it. Remove it or widen the cidr.`);
    }
    return parsed;
  });
  return {
    kind: 'ipBlock',
    cidr: block.cidr,
    except: block.except ?? [],
    // [concept] example: "all of 172.17.0.0/16 except 172.17.1.0/24".
    matches: (ip) => inCidr(cidr, ip) && !except.some((e) => inCidr(e, ip)),
  };
}

function checkPort(port: NetworkPolicyPortJson, at: string): CheckedPort {
  // [api] NetworkPolicyPort.protocol: "If not specified, this field defaults to TCP."
  const protocol = port.protocol ?? 'TCP';
  if (protocol !== 'TCP' && protocol !== 'UDP' && protocol !== 'SCTP') throw new Error(`${at}.protocol: '${protocol}' is not TCP, UDP or SCTP.`);
  if (port.endPort !== undefined) {
    // [api] NetworkPolicyPort.endPort: "This field cannot be defined if the port field is not defined or if the port
    // field is defined as a named (string) port. The endPort must be equal or greater than port."
    if (typeof port.port !== 'number') {
      throw new Error(`${at}.endPort: needs a numeric port, got ${JSON.stringify(port.port)}; set port to the first number of the range.`);
    }
    if (port.endPort < port.port) throw new Error(`${at}.endPort: ${port.endPort} is less than port ${port.port}; endPort must be >= port.`);
  }
  return { protocol, port: port.port, endPort: port.endPort };
}

function evaluateDirection(policies: readonly CheckedPolicy[], direction: Direction, flow: ResolvedFlow, model: ClusterModel): DirectionVerdict {
  const self = direction === 'Egress' ? flow.from : flow.to;
  const peer = direction === 'Egress' ? flow.to : flow.from;
  const word = direction === 'Egress' ? 'egress' : 'ingress';
  if (self.kind !== 'pod') {
    return {
      isPod: false, isolated: false, isolatedBy: [], allowedBy: [], allowedByRules: [], allowed: true, rejectedRules: [],
      reason: `${self.address.ip} is not a pod; no ${word} policy applies to it`,
    };
  }
  const pod = self.pod;
  // [concept] "Isolated and Non-isolated Pods": a pod is isolated for a direction when a NetworkPolicy in its
  // namespace selects it and has that direction in its policyTypes; [api] podSelector: "An empty podSelector matches
  // all pods in this namespace."
  const isolating = policies
    .filter((p) => p.namespace === pod.namespace && p.types.includes(direction))
    .filter((p) => selectorMatches(p.podSelector, pod.labels ?? {}, `NetworkPolicy ${p.id}: spec.podSelector`))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const isolatedBy = isolating.map((p) => p.id);
  const podName = describeEndpoint(pod);
  if (isolating.length === 0) {
    // [concept]: "By default, pods are non-isolated; they accept traffic from any source."
    return {
      isPod: true, isolated: false, isolatedBy, allowedBy: [], allowedByRules: [], allowed: true, rejectedRules: [],
      reason: `no policy with ${direction} in its policyTypes selects ${podName}; not isolated for ${word}`,
    };
  }
  // [api] NetworkPolicySpec.ingress: "Traffic is allowed to a pod if there are no NetworkPolicies selecting the pod
  // (...), OR if the traffic source is the pod's local node, OR if the traffic matches at least one ingress rule".
  if (direction === 'Ingress' && peer.kind === 'address' && peer.address.node !== undefined && peer.address.node === pod.node) {
    return {
      isPod: true, isolated: true, isolatedBy, allowedBy: [], allowedByRules: [], allowed: true, rejectedRules: [],
      reason: `the source is ${podName}'s own node ${pod.node}, which ingress policy always admits`,
    };
  }
  // The named ports of a rule resolve against the destination pod in both directions: [api] NetworkPolicyPort.port
  // "can either be a numerical or named port on a pod", and the port a flow uses is the destination's.
  const destination = flow.to.kind === 'pod' ? flow.to.pod : undefined;
  const allowedByRules: string[] = [];
  const rejectedRules: string[] = [];
  for (const policy of isolating) {
    const rules = direction === 'Egress' ? policy.egress : policy.ingress;
    // [api] "If this field is empty then this NetworkPolicy does not allow any traffic (and serves solely to ensure
    // that the pods it selects are isolated by default)".
    if (rules.length === 0) rejectedRules.push(`${policy.id}: no ${word} rules (isolates only)`);
    for (const rule of rules) {
      const peerMismatch = peerMismatchOf(rule, peer, policy.namespace, model);
      const portMismatch = portMismatchOf(rule, flow, destination);
      if (peerMismatch === undefined && portMismatch === undefined) allowedByRules.push(rule.label);
      else rejectedRules.push(`${rule.label}: ${[peerMismatch, portMismatch].filter((m) => m !== undefined).join('; ')}`);
    }
  }
  // [concept]: "If any policy or policies select a pod, the pod is restricted to what is allowed by the union of
  // those policies' ingress/egress rules."
  const allowedBy = [...new Set(allowedByRules.map((r) => r.slice(0, r.lastIndexOf(' '))))];
  const allowed = allowedByRules.length > 0;
  return {
    isPod: true,
    isolated: true,
    isolatedBy,
    allowedBy,
    allowedByRules,
    allowed,
    rejectedRules: allowed ? [] : rejectedRules,
    reason: allowed
      ? `${podName} is isolated for ${word} by ${isolatedBy.join(', ')}; admitted by ${allowedByRules.join(', ')}`
      : `${podName} is isolated for ${word} by ${isolatedBy.join(', ')} and no ${word} rule admits the flow`,
  };
}

/** Why no peer of `rule` matches the other end, or undefined when one does. */
function peerMismatchOf(rule: CheckedRule, other: ResolvedEndpoint, policyNamespace: string, model: ClusterModel): string | undefined {
  if (rule.peers === undefined) return undefined;
  const reasons: string[] = [];
  for (const peer of rule.peers) {
    const mismatch = peerMismatch(peer, other, policyNamespace, model);
    if (mismatch === undefined) return undefined;
    reasons.push(mismatch);
  }
  // [api] from/to: "Items in this list are combined using a logical OR operation."
  return `peer does not match (${reasons.join(' | ')})`;
}

function peerMismatch(peer: CheckedPeer, other: ResolvedEndpoint, policyNamespace: string, model: ClusterModel): string | undefined {
  if (peer.kind === 'ipBlock') {
    const except = peer.except.length > 0 ? ` except ${peer.except.join(', ')}` : '';
    let ip: string | undefined;
    if (other.kind === 'address' && other.address.node !== undefined && !model.ipBlockMatchesNodes) {
      return `ipBlock ${peer.cidr}${except} matches no node address (ipBlockMatchesNodes is off; ${other.address.ip} is node ${other.address.node})`;
    }
    if (other.kind === 'address') ip = other.address.ip;
    else if (model.ipBlockMatchesPods) ip = other.pod.ip;
    else return `ipBlock ${peer.cidr}${except} matches no pod (ipBlockMatchesPods is off)`;
    if (ip === undefined) return `ipBlock ${peer.cidr}${except}: the pod has no IP in the model`;
    return peer.matches(ip) ? undefined : `${ip} is not in ${peer.cidr}${except}`;
  }
  if (other.kind !== 'pod') return `${selectorText(peer)} selects pods, not ${other.address.ip}`;
  const { pod, namespaceLabels } = other;
  // [api] NetworkPolicyPeer.podSelector: with namespaceSelector "the pods matching podSelector in the Namespaces
  // selected by NamespaceSelector. Otherwise it selects the pods matching podSelector in the policy's own namespace."
  // [api] namespaceSelector: "if present but empty, it selects all namespaces"; without podSelector "it selects all
  // pods in the namespaces selected by namespaceSelector".
  if (peer.namespaceSelector !== undefined) {
    if (!selectorMatches(peer.namespaceSelector, namespaceLabels, `${peer.where}.namespaceSelector`)) {
      return `${selectorText(peer)}: namespace ${pod.namespace} not selected`;
    }
  } else if (pod.namespace !== policyNamespace) {
    return `${selectorText(peer)}: selects only namespace ${policyNamespace}, the pod is in ${pod.namespace}`;
  }
  if (peer.podSelector !== undefined && !selectorMatches(peer.podSelector, pod.labels ?? {}, `${peer.where}.podSelector`)) {
    return `${selectorText(peer)}: pod labels ${labelText(pod.labels ?? {})} not selected`;
  }
  return undefined;
}

/** Why no port of `rule` matches the flow, or undefined when one does. */
function portMismatchOf(rule: CheckedRule, flow: ResolvedFlow, destination: PodModel | undefined): string | undefined {
  if (rule.ports === undefined) return undefined;
  // [api] ports: "Each item in this list is combined using a logical OR."
  if (rule.ports.some((port) => portMatches(port, flow, destination))) return undefined;
  const undeclared = rule.ports.flatMap((p) => typeof p.port === 'string' && destination?.ports?.find((c) => c.name === p.port) === undefined ? [p.port] : []);
  const hint = undeclared.length === 0 ? '' : ` (the destination declares no container port named ${undeclared.join(', ')})`;
  return `port ${flow.port}/${flow.protocol} not in [${rule.ports.map(portText).join(', ')}]${hint}`;
}

function portMatches(port: CheckedPort, flow: ResolvedFlow, destination: PodModel | undefined): boolean {
  // [api] port: "If present, only traffic on the specified protocol AND port will be matched."
  if (port.protocol !== flow.protocol) return false;
  // [api] port: "If this field is not provided, this matches all port names and numbers."
  if (port.port === undefined) return true;
  if (typeof port.port === 'number') {
    // [api] endPort: "the range of ports from port to endPort if set, inclusive".
    return port.endPort === undefined ? flow.port === port.port : flow.port >= port.port && flow.port <= port.endPort;
  }
  // A named port is a container port of the destination pod, with its protocol; an address outside the cluster has
  // no named ports, so a named port never matches it.
  const named = destination?.ports?.find((p) => p.name === port.port);
  return named !== undefined && named.containerPort === flow.port && (named.protocol ?? 'TCP') === flow.protocol;
}

function portText(port: CheckedPort): string {
  const number = port.port === undefined ? 'any' : port.endPort !== undefined ? `${port.port}-${port.endPort}` : String(port.port);
  return `${number}/${port.protocol}`;
}

function selectorText(peer: { podSelector?: LabelSelectorJson; namespaceSelector?: LabelSelectorJson }): string {
  const parts: string[] = [];
  if (peer.namespaceSelector !== undefined) parts.push(`namespaceSelector ${selectorSummary(peer.namespaceSelector)}`);
  if (peer.podSelector !== undefined) parts.push(`podSelector ${selectorSummary(peer.podSelector)}`);
  return parts.join(' + ');
}

function selectorSummary(selector: LabelSelectorJson): string {
  const parts = Object.keys(selector.matchLabels ?? {}).sort().map((k) => `${k}=${(selector.matchLabels ?? {})[k]}`);
  for (const e of selector.matchExpressions ?? []) parts.push(`${e.key} ${e.operator}${e.values !== undefined ? ` (${e.values.join(',')})` : ''}`);
  return parts.length === 0 ? '{} (all)' : `{${parts.join(', ')}}`;
}

function labelText(labels: Readonly<Record<string, string>>): string {
  return `{${Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join(', ')}}`;
}

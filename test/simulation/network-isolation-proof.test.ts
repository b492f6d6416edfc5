import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { NetworkPeer, peerName } from '../../lib/shared/network';
import {
  AddressModel, ExpectedFlow, FlowEndpoint, NetworkPolicyEvaluationOptions, PodModel, unexpectedVerdicts,
} from '../../lib/simulation/network-policy';
import ddbCluster from '../../examples/ddb-cluster.config';
import { synthesizedPolicies } from './synthesized-policies';

/**
 * The proof of issue 17: the NetworkPolicies the program writes, evaluated statically with NetworkPolicy v1 semantics
 * (lib/simulation/network-policy.ts), allow every flow the constructs declare and deny the flows nothing declares.
 */

/** A control-plane node's address, where pods reach the API server (inside the reference `network.kubernetesApiCidrs`). */
const API_SERVER: AddressModel = { ip: '192.168.1.10', node: 'cp-1' };
/** github.com, a chart repository, the S3 endpoint: any address outside the cluster. */
const OUTSIDE: AddressModel = { ip: '140.82.121.3' };
const DNS: PodModel = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, name: 'coredns', ip: '10.244.0.10' };
let nextIp = 20;
/** A pod with `labels` in `namespace`, with an address in the reference pod CIDR. */
const pod = (namespace: string, labels: Record<string, string>, name: string): PodModel => ({ namespace, labels: { ...labels, extra: 'label' }, name, ip: `10.244.1.${nextIp++}` });

const APP = pod('homarr', { 'app.kubernetes.io/name': 'homarr' }, 'an application pod');

/** Cilium with `policyCIDRMatchMode: [nodes]` (the reference values): an ipBlock selects node addresses, never pods. */
const CILIUM: NetworkPolicyEvaluationOptions = { ipBlockMatchesNodes: true, ipBlockMatchesPods: false };
/** Plain NetworkPolicy semantics where an ipBlock also matches pod IPs (e.g. Calico): the `except` of the cluster CIDRs must hold. */
const IPBLOCK_MATCHES_PODS: NetworkPolicyEvaluationOptions = { ipBlockMatchesNodes: true, ipBlockMatchesPods: true };

const synthesized = synthesizedPolicies;

/** A concrete end for a declared peer. */
function endpoint(peer: NetworkPeer): FlowEndpoint {
  switch (peer.kind) {
    case 'pods': return pod(peer.namespace, { ...peer.podSelector }, peer.name);
    case 'selected-pods': return pod(peer.namespace ?? 'some-namespace', { ...(peer.podSelector ?? {}) }, peer.name);
    case 'kubernetes-api': return API_SERVER;
    case 'cluster-dns': return DNS;
    case 'outside-cluster': return OUTSIDE;
  }
}

/** Every declared flow on every one of its ports, and DNS for every workload that opens a connection: all allowed. */
function declaredFlows(s: ReturnType<typeof synthesized>): ExpectedFlow[] {
  const rows: ExpectedFlow[] = [];
  for (const f of s.bootstrap.network!.flows) {
    const from = endpoint(f.from);
    const to = endpoint(f.to);
    const ports = f.allPorts ? [1, 5432, 65535] : f.ports.map((p) => p.port);
    for (const port of ports) rows.push({ from, to, port, protocol: f.ports.find((p) => p.port === port)?.protocol, expect: 'allow', why: f.reason });
    if (f.from.kind === 'pods') rows.push({ from, to: DNS, port: 53, protocol: 'UDP', expect: 'allow', why: `${peerName(f.from)} resolves names` });
  }
  return rows;
}

describe('the reference homelab\'s NetworkPolicies, evaluated statically', () => {
  const s = synthesized(REFERENCE_HOMELAB);
  const forgejo = pod('cicd', s.bootstrap.forgejo.selector as Record<string, string>, 'forgejo');
  const redis = pod('cicd', s.bootstrap.forgejo.redis.selector as Record<string, string>, 'forgejo-redis');
  const db = pod('cicd', { 'cnpg.io/cluster': 'forgejo-db', 'cnpg.io/podRole': 'instance' }, 'forgejo-db-1');
  const webhook = pod('cnpg-system', { 'app.kubernetes.io/name': 'cloudnative-pg' }, 'cnpg-controller-manager');
  const repoServer = pod('argocd', { 'app.kubernetes.io/name': 'argocd-repo-server' }, 'argocd-repo-server');
  const wait = pod('cicd', { 'app.kubernetes.io/name': 'wait-for-postgres', 'app.kubernetes.io/instance': 'wait-for-forgejo-db' }, 'wait-for-forgejo-db');

  const forbidden: ExpectedFlow[] = [
    { from: APP, to: db, port: 5432, expect: 'deny', why: 'an application namespace must not reach Forgejo\'s database' },
    { from: APP, to: db, port: 8000, expect: 'deny', why: 'nor the instance manager' },
    { from: APP, to: redis, port: 6379, expect: 'deny', why: 'an application namespace must not reach Redis' },
    { from: APP, to: forgejo, port: 2222, expect: 'deny', why: 'an application namespace must not reach Forgejo\'s SSH' },
    { from: APP, to: forgejo, port: 3000, expect: 'deny', why: 'nor its HTTP: only the LAN through forgejo-lan, the runner and the Jobs' },
    {
      from: pod('forgejo-runner', { app: 'runner' }, 'forgejo-runner'), to: forgejo, port: 2222, expect: 'deny',
      why: 'the runner reaches Forgejo\'s HTTP (argocd.applications.forgejo-runner.network), not its SSH',
    },
    { from: APP, to: webhook, port: 9443, expect: 'deny', why: 'only the API server calls the webhook' },
    { from: APP, to: repoServer, port: 8081, expect: 'deny', why: 'only Argo CD\'s components call the repo-server' },
    { from: redis, to: DNS, port: 53, protocol: 'UDP', expect: 'deny', why: 'Redis opens no connection, not even DNS' },
    { from: redis, to: db, port: 5432, expect: 'deny', why: 'Redis opens no connection' },
    { from: redis, to: forgejo, port: 3000, expect: 'deny', why: 'Redis opens no connection' },
    { from: redis, to: API_SERVER, port: 6443, expect: 'deny', why: 'Redis opens no connection' },
    { from: redis, to: OUTSIDE, port: 443, expect: 'deny', why: 'Redis opens no connection' },
    { from: forgejo, to: API_SERVER, port: 6443, expect: 'deny', why: 'Forgejo has no service account token and no API flow' },
    { from: forgejo, to: OUTSIDE, port: 25, expect: 'deny', why: 'Forgejo reaches outside only on the mirror\'s port' },
    { from: forgejo, to: APP, port: 80, expect: 'deny', why: 'Forgejo reaches no application pod' },
    { from: db, to: OUTSIDE, port: 22, expect: 'deny', why: 'the instances reach the object store on 443 only' },
    { from: wait, to: forgejo, port: 3000, expect: 'deny', why: 'the wait Job talks to the API server only' },
    { from: OUTSIDE, to: db, port: 5432, expect: 'deny', why: 'nothing outside reaches the database' },
    { from: OUTSIDE, to: redis, port: 6379, expect: 'deny', why: 'nothing outside reaches Redis' },
  ];

  test('every declared flow is allowed, on each of its ports, with DNS for whoever opens one', () => {
    const rows = declaredFlows(s);
    expect(rows.length).toBeGreaterThan(60);
    expect(unexpectedVerdicts(s.policies, rows, CILIUM)).toEqual([]);
  });

  test('the forbidden flows are denied (Cilium: ipBlocks select nodes, never pods)', () => {
    expect(unexpectedVerdicts(s.policies, forbidden, CILIUM)).toEqual([]);
  });

  test('the forbidden flows are denied also where an ipBlock matches pod IPs: the cluster CIDRs are excepted', () => {
    expect(unexpectedVerdicts(s.policies, forbidden, IPBLOCK_MATCHES_PODS)).toEqual([]);
    // the allow from outside to Forgejo (forgejo-lan) covers the LAN, not a pod that dials the load balancer
    expect(unexpectedVerdicts(s.policies, [{ from: OUTSIDE, to: forgejo, port: 2222, expect: 'allow', why: 'forgejo-lan' }], IPBLOCK_MATCHES_PODS)).toEqual([]);
  });

  test('without Cilium\'s node matching, no isolated pod could reach the API server: why the Cilium values set it', () => {
    const rows: ExpectedFlow[] = [{ from: wait, to: API_SERVER, port: 6443, expect: 'deny' }];
    expect(unexpectedVerdicts(s.policies, rows, { ipBlockMatchesNodes: false })).toEqual([]);
  });
});

describe('the ddb example\'s NetworkPolicies, evaluated statically', () => {
  const s = synthesized(ddbCluster);
  const ddb = pod('ddb', { 'cnpg.io/cluster': 'ddb-cluster', 'cnpg.io/podRole': 'instance' }, 'ddb-cluster-1');

  test('every declared flow is allowed', () => {
    expect(unexpectedVerdicts(s.policies, declaredFlows(s), CILIUM)).toEqual([]);
  });

  test('Authentik (usedBy) and Temporal reach the shared cluster; any other application namespace does not', () => {
    const rows: ExpectedFlow[] = [
      { from: pod('iam', { 'app.kubernetes.io/name': 'authentik' }, 'authentik-server'), to: ddb, port: 5432, expect: 'allow', why: 'databases.authentik.usedBy' },
      { from: pod('temporal', { app: 'temporal' }, 'temporal-frontend'), to: ddb, port: 5432, expect: 'allow', why: 'TemporalApplication' },
      { from: APP, to: ddb, port: 5432, expect: 'deny', why: 'homarr uses no database of the cluster' },
      { from: pod('iam', {}, 'authentik-server'), to: ddb, port: 8000, expect: 'deny', why: 'clients reach PostgreSQL only' },
    ];
    expect(unexpectedVerdicts(s.policies, rows, CILIUM)).toEqual([]);
    expect(unexpectedVerdicts(s.policies, rows, IPBLOCK_MATCHES_PODS)).toEqual([]);
  });
});

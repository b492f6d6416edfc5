// Cross-check: the NetworkPolicy evaluator and SIG Network's Policy Assistant must agree on every flow of a matrix
// that exercises the classic traps. Skipped, visibly, when Policy Assistant is not built
// (`node scripts/build-policy-assistant.js`). The matrix keeps to what Policy Assistant's walkthrough mode models
// (see test/simulation/policy-assistant.ts): numeric ports only, every pod with an IP, ipBlocks that match pod IPs.
import { evaluateFlow, explainFlow, Flow, FlowEndpoint, NetworkPolicyJson, NetworkProtocol, PodModel } from '../../lib/simulation/network-policy';
import { testWith } from '../tools';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { synthesizedPolicies } from './synthesized-policies';
import { findPolicyAssistant, runPolicyAssistant } from './policy-assistant';

const policyAssistant = findPolicyAssistant();
const paTest = testWith(policyAssistant);

function policy(namespace: string, name: string, spec: NonNullable<NetworkPolicyJson['spec']>): NetworkPolicyJson {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace }, spec };
}
const ns = (name: string): { matchLabels: Record<string, string> } => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });

const POLICIES: NetworkPolicyJson[] = [
  policy('cicd', 'default-deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
  policy('cicd', 'db-ingress', {
    podSelector: { matchLabels: { 'cnpg.io/cluster': 'forgejo-db' } },
    policyTypes: ['Ingress'],
    ingress: [
      { from: [{ podSelector: { matchLabels: { app: 'forgejo' } } }], ports: [{ port: 5432 }] },
      // one peer: namespace ddb AND app=ddb
      { from: [{ namespaceSelector: ns('ddb'), podSelector: { matchLabels: { app: 'ddb' } } }], ports: [{ port: 5432 }] },
    ],
  }),
  policy('cicd', 'redis-ingress', {
    podSelector: { matchLabels: { app: 'redis' } },
    policyTypes: ['Ingress'],
    // two peers: any pod of namespace ddb OR app=forgejo of cicd
    ingress: [{ from: [{ namespaceSelector: ns('ddb') }, { podSelector: { matchLabels: { app: 'forgejo' } } }], ports: [{ port: 6379 }] }],
  }),
  policy('cicd', 'forgejo-egress', {
    podSelector: { matchLabels: { app: 'forgejo' } },
    policyTypes: ['Egress'],
    egress: [
      { to: [{ podSelector: { matchLabels: { 'cnpg.io/cluster': 'forgejo-db' } } }], ports: [{ port: 5432 }] },
      { to: [{ podSelector: { matchLabels: { app: 'redis' } } }], ports: [{ port: 6379 }] },
      { to: [{ namespaceSelector: ns('kube-system'), podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ port: 53, protocol: 'UDP' }] },
      { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.17.1.0/24'] } }], ports: [{ port: 443 }] },
    ],
  }),
  // policyTypes omitted, egress rules present: Ingress and Egress
  policy('cicd', 'db-egress', {
    podSelector: { matchLabels: { 'cnpg.io/cluster': 'forgejo-db' } },
    egress: [{ to: [{ ipBlock: { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] } }, { ipBlock: { cidr: '2001:db8::/32' } }], ports: [{ port: 443 }] }],
  }),
  policy('apps', 'deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] }),
  policy('ddb', 'egress-ranges', {
    podSelector: { matchExpressions: [{ key: 'role', operator: 'DoesNotExist' }] },
    policyTypes: ['Egress'],
    egress: [
      { to: [{ namespaceSelector: {} }], ports: [{ port: 5432 }, { port: 6379 }, { port: 32000, endPort: 32768 }] },
      { to: [{ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] } }], ports: [{ protocol: 'UDP' }] },
    ],
  }),
];

const NAMESPACES = [{ name: 'kube-system', labels: { team: 'platform' } }, { name: 'ddb', labels: { team: 'data' } }];

const PODS: PodModel[] = [
  { namespace: 'cicd', name: 'forgejo', labels: { app: 'forgejo' }, ip: '10.244.1.20' },
  { namespace: 'cicd', name: 'forgejo-db-1', labels: { 'cnpg.io/cluster': 'forgejo-db' }, ip: '10.244.1.10' },
  { namespace: 'cicd', name: 'redis', labels: { app: 'redis' }, ip: '10.244.1.30' },
  { namespace: 'apps', name: 'app', labels: { app: 'forgejo' }, ip: '10.244.2.30' },
  { namespace: 'ddb', name: 'ddb', labels: { app: 'ddb' }, ip: '10.244.3.40' },
  { namespace: 'ddb', name: 'ddb-batch', labels: { app: 'ddb', role: 'batch' }, ip: '10.244.3.41' },
  { namespace: 'ddb', name: 'ddb-other', labels: { app: 'other' }, ip: '10.244.3.42' },
  { namespace: 'kube-system', name: 'coredns', labels: { 'k8s-app': 'kube-dns' }, ip: '10.244.0.5' },
];
const ADDRESSES: FlowEndpoint[] = [{ ip: '140.82.112.3' }, { ip: '172.17.1.7' }, { ip: '172.17.2.1' }, { ip: '2001:db8:1::5' }];
const PORTS: [number, NetworkProtocol][] = [[5432, 'TCP'], [6379, 'TCP'], [443, 'TCP'], [53, 'UDP'], [32000, 'TCP'], [32768, 'TCP'], [32769, 'TCP']];

const ENDPOINTS: FlowEndpoint[] = [...PODS, ...ADDRESSES];
const FLOWS: Flow[] = ENDPOINTS.flatMap((from) => ENDPOINTS.filter((to) => to !== from && ('namespace' in from || 'namespace' in to))
  .flatMap((to) => PORTS.map(([port, protocol]) => ({ from, to, port, protocol }))));

paTest('the evaluator agrees with Policy Assistant on every flow of the matrix', () => {
  // GIVEN both verdicts on every flow
  const ours = FLOWS.map((flow) => evaluateFlow(POLICIES, flow, { namespaces: NAMESPACES, ipBlockMatchesPods: true }));
  const theirs = runPolicyAssistant(policyAssistant.command!, POLICIES, FLOWS, NAMESPACES);
  // THEN they agree, and a disagreement shows both explanations
  const disagreements = ours.flatMap((verdict, i) => verdict.allowed === theirs[i].allowed ? [] : [
    `${explainFlow(verdict)}\n  policy-assistant: ${theirs[i].allowed ? 'Allowed' : 'Denied'}; ingress: ${theirs[i].ingress}; egress: ${theirs[i].egress}`,
  ]);
  expect(disagreements).toEqual([]);
  // and the matrix is not trivially uniform: it holds both verdicts in numbers
  const allowedCount = ours.filter((v) => v.allowed).length;
  expect(allowedCount).toBeGreaterThan(20);
  expect(FLOWS.length - allowedCount).toBeGreaterThan(100);
}, 120_000);

paTest('Policy Assistant departs from Kubernetes on NotIn with an absent label; the evaluator follows Kubernetes', () => {
  // GIVEN a policy that isolates, for egress, the ddb pods whose role is not batch, i.e. also those without a role
  // (apimachinery pkg/labels/selector.go, Requirement.Matches: "case selection.NotIn ...: if !ls.Has(r.key) { return true }")
  const notBatch = policy('ddb', 'not-batch', {
    podSelector: { matchExpressions: [{ key: 'role', operator: 'NotIn', values: ['batch'] }] }, policyTypes: ['Egress'],
  });
  const withoutRole = PODS.find((p) => p.name === 'ddb')!;
  const toGitHub: Flow = { from: withoutRole, to: { ip: '140.82.112.3' }, port: 443 };
  // THEN the evaluator isolates the pod and denies; Policy Assistant (pkg/kube/labelselector.go: "even for NotIn -- if
  // the key isn't there, it's not a match") leaves it open. If this starts failing, Policy Assistant was fixed.
  expect(evaluateFlow([notBatch], toGitHub).egress).toMatchObject({ isolated: true, isolatedBy: ['ddb/not-batch'], allowed: false });
  expect(runPolicyAssistant(policyAssistant.command!, [notBatch], [toGitHub])[0]).toMatchObject({ allowed: true, egress: 'no policies targeting egress' });
});

paTest('the evaluator agrees with Policy Assistant on the reference homelab\'s own NetworkPolicies', () => {
  // GIVEN the synthesized policies and a pod of every workload they select, plus strangers, all with pod-CIDR addresses
  // (Policy Assistant matches ipBlocks against pod IPs and models no node, so the API server is left out here)
  const { policies, bootstrap } = synthesizedPolicies(REFERENCE_HOMELAB);
  const workloads = new Map<string, PodModel>();
  let ip = 10;
  for (const f of bootstrap.network!.flows) {
    for (const end of [f.from, f.to]) {
      if (end.kind === 'pods' && !workloads.has(end.name)) {
        workloads.set(end.name, { namespace: end.namespace, name: end.name, labels: { ...end.podSelector }, ip: `10.244.5.${ip++}` });
      }
    }
  }
  const pods: PodModel[] = [
    ...workloads.values(),
    { namespace: 'homarr', name: 'stranger', labels: { app: 'homarr' }, ip: '10.244.6.1' },
    { namespace: 'monitoring', name: 'prometheus', labels: { 'app.kubernetes.io/name': 'prometheus' }, ip: '10.244.6.2' },
    { namespace: 'kube-system', name: 'coredns', labels: { 'k8s-app': 'kube-dns' }, ip: '10.244.0.5' },
  ];
  const endpoints: FlowEndpoint[] = [...pods, { ip: '140.82.112.3' }];
  const ports: [number, NetworkProtocol][] = [[5432, 'TCP'], [6379, 'TCP'], [3000, 'TCP'], [2222, 'TCP'], [8000, 'TCP'], [443, 'TCP'], [53, 'UDP'], [8081, 'TCP']];
  const flows: Flow[] = endpoints.flatMap((from) => endpoints.filter((to) => to !== from && ('namespace' in from || 'namespace' in to))
    .flatMap((to) => ports.map(([port, protocol]) => ({ from, to, port, protocol }))));
  // WHEN both decide every flow
  const ours = flows.map((flow) => evaluateFlow(policies, flow, { ipBlockMatchesPods: true }));
  const theirs = runPolicyAssistant(policyAssistant.command!, policies, flows);
  // THEN they agree
  const disagreements = ours.flatMap((verdict, i) => verdict.allowed === theirs[i].allowed ? [] : [
    `${explainFlow(verdict)}\n  policy-assistant: ${theirs[i].allowed ? 'Allowed' : 'Denied'}; ingress: ${theirs[i].ingress}; egress: ${theirs[i].egress}`,
  ]);
  expect(disagreements).toEqual([]);
  expect(ours.filter((v) => v.allowed).length).toBeGreaterThan(20);
  expect(flows.length).toBeGreaterThan(1000);
}, 300_000);

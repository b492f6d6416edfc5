// The NetworkPolicy v1 evaluator, one rule per test. Each test quotes the sentence of the API reference (kubernetes/api
// v0.30.0 networking/v1/types.go, the v1.30 reference) or of the concept page
// (https://kubernetes.io/docs/concepts/services-networking/network-policies/) that it checks.
import { Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import {
  evaluateFlow, explainFlow, Flow, NetworkPolicyEvaluationOptions, NetworkPolicyJson, NetworkPolicyPeerJson, NetworkPolicyPortJson, PodModel,
  selectorMatches, unexpectedVerdicts,
} from '../../lib/simulation/network-policy';

// ---- fixtures -------------------------------------------------------------------------------------------------

const DB: PodModel = {
  namespace: 'cicd', name: 'forgejo-db-1', labels: { 'cnpg.io/cluster': 'forgejo-db' }, ip: '10.244.1.10',
  ports: [{ name: 'postgresql', containerPort: 5432 }, { name: 'metrics', containerPort: 9187 }],
};
const FORGEJO: PodModel = { namespace: 'cicd', name: 'forgejo', labels: { app: 'forgejo' }, ip: '10.244.1.20' };
const APP: PodModel = { namespace: 'apps', name: 'app', labels: { app: 'forgejo' }, ip: '10.244.2.30' };
const DDB: PodModel = { namespace: 'ddb', name: 'ddb', labels: { app: 'ddb' }, ip: '10.244.2.40' };

function policy(namespace: string, name: string, spec: NonNullable<NetworkPolicyJson['spec']>): NetworkPolicyJson {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace }, spec };
}
const denyAll = (namespace: string): NetworkPolicyJson => policy(namespace, 'default-deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
const denyIngress = (namespace: string): NetworkPolicyJson => policy(namespace, 'deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] });
/** An ingress allow onto the database pods from `from`, on `ports`. */
function allowIntoDb(from: NetworkPolicyPeerJson[] | undefined, ports?: NetworkPolicyPortJson[]): NetworkPolicyJson {
  return policy('cicd', 'db-ingress', {
    podSelector: { matchLabels: { 'cnpg.io/cluster': 'forgejo-db' } }, policyTypes: ['Ingress'], ingress: [{ from, ports }],
  });
}
const flow = (from: Flow['from'], to: Flow['to'], port: number, protocol?: Flow['protocol']): Flow => ({ from, to, port, protocol });
const allowed = (policies: NetworkPolicyJson[], f: Flow, options?: NetworkPolicyEvaluationOptions): boolean =>
  evaluateFlow(policies, f, options).allowed;

// ---- isolation ------------------------------------------------------------------------------------------------

describe('isolation', () => {
  test('a pod no policy selects accepts everything ("By default, pods are non-isolated; they accept traffic from any source.")', () => {
    const verdict = evaluateFlow([denyAll('ddb')], flow(FORGEJO, DB, 5432));
    expect(verdict.allowed).toBe(true);
    expect(verdict.egress).toMatchObject({ isolated: false, isolatedBy: [] });
    expect(verdict.ingress).toMatchObject({ isolated: false, isolatedBy: [] });
  });

  test('a policy with no rules isolates the pods it selects ("If this field is empty then this NetworkPolicy does not allow any traffic")', () => {
    const verdict = evaluateFlow([denyIngress('cicd')], flow(APP, DB, 5432));
    expect(verdict.allowed).toBe(false);
    expect(verdict.ingress).toMatchObject({ isolated: true, isolatedBy: ['cicd/deny-ingress'], allowedBy: [], allowed: false });
    expect(verdict.ingress.rejectedRules).toEqual(['cicd/deny-ingress: no ingress rules (isolates only)']);
  });

  test('isolation is per namespace: a policy of another namespace does not select the pod ("An empty podSelector matches all pods in this namespace.")', () => {
    expect(allowed([denyIngress('other')], flow(APP, DB, 5432))).toBe(true);
  });

  test('trap: a default-deny of Ingress only leaves egress open ("This policy does not change the default egress isolation behavior.")', () => {
    // GIVEN a deny-ingress in the database's namespace and an allow onto the database
    const policies = [denyIngress('cicd'), allowIntoDb([{ podSelector: { matchLabels: { app: 'forgejo' } } }])];
    // WHEN the database itself connects out, to the internet
    const verdict = evaluateFlow(policies, flow(DB, { ip: '140.82.112.3' }, 443));
    // THEN its egress is not isolated
    expect(verdict.egress).toMatchObject({ isolated: false, allowed: true });
    expect(verdict.allowed).toBe(true);
  });

  test('trap: policyTypes omitted with egress rules makes the policy an egress policy too ("Egress will be set if the NetworkPolicy has any egress rules")', () => {
    const onlyDns = policy('cicd', 'dns-only', {
      podSelector: { matchLabels: { app: 'forgejo' } },
      egress: [{ to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }], ports: [{ protocol: 'UDP', port: 53 }] }],
    });
    const verdict = evaluateFlow([onlyDns], flow(FORGEJO, DB, 5432));
    expect(verdict.egress).toMatchObject({ isolated: true, isolatedBy: ['cicd/dns-only'], allowed: false });
    // ... and an ingress policy as well ("by default Ingress will always be set"): with no ingress rules it denies.
    const inbound = evaluateFlow([onlyDns], flow(APP, FORGEJO, 3000));
    expect(inbound.ingress).toMatchObject({ isolated: true, isolatedBy: ['cicd/dns-only'], allowed: false });
  });

  test('policyTypes omitted and no egress rules: not an egress policy (SetDefaults_NetworkPolicy appends Egress only when len(Egress) != 0)', () => {
    const p = policy('cicd', 'ingress-only', { podSelector: {}, ingress: [{}], egress: [] });
    expect(evaluateFlow([p], flow(FORGEJO, APP, 80)).egress.isolated).toBe(false);
  });

  test('policyTypes [Egress] alone leaves ingress open ("If you want to write an egress-only policy, you must explicitly specify policyTypes [ "Egress" ].")', () => {
    const p = policy('cicd', 'egress-only', { podSelector: {}, policyTypes: ['Egress'] });
    const verdict = evaluateFlow([p], flow(APP, DB, 5432));
    expect(verdict.ingress.isolated).toBe(false);
    expect(verdict.allowed).toBe(true);
    expect(allowed([p], flow(DB, APP, 80))).toBe(false);
  });

  test('both ends must allow ("both the egress policy on the source pod and the ingress policy on the destination pod need to allow the connection")', () => {
    // GIVEN the database admits Forgejo, but Forgejo's namespace denies all egress
    const policies = [denyAll('cicd'), allowIntoDb([{ podSelector: { matchLabels: { app: 'forgejo' } } }], [{ port: 5432 }])];
    const verdict = evaluateFlow(policies, flow(FORGEJO, DB, 5432));
    // THEN ingress allows, egress denies, the flow is denied
    expect(verdict.ingress).toMatchObject({ allowed: true, allowedBy: ['cicd/db-ingress'], allowedByRules: ['cicd/db-ingress ingress[0]'] });
    expect(verdict.egress).toMatchObject({ allowed: false, isolatedBy: ['cicd/default-deny'] });
    expect(verdict.allowed).toBe(false);
  });

  test('policies are additive: any one rule of any selecting policy admits ("the pod is restricted to what is allowed by the union of those policies\' ingress/egress rules")', () => {
    const other = policy('cicd', 'db-from-ddb', {
      podSelector: { matchLabels: { 'cnpg.io/cluster': 'forgejo-db' } }, policyTypes: ['Ingress'],
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ddb' } } }] }],
    });
    const policies = [denyIngress('cicd'), allowIntoDb([{ podSelector: { matchLabels: { app: 'forgejo' } } }]), other];
    const verdict = evaluateFlow(policies, flow(DDB, DB, 5432));
    expect(verdict.ingress.isolatedBy).toEqual(['cicd/db-from-ddb', 'cicd/db-ingress', 'cicd/deny-ingress']);
    expect(verdict.ingress.allowedBy).toEqual(['cicd/db-from-ddb']);
    expect(verdict.allowed).toBe(true);
  });

  test('ingress from the pod\'s own node is admitted ("OR if the traffic source is the pod\'s local node")', () => {
    const db = { ...DB, node: 'n1' };
    expect(allowed([denyIngress('cicd')], flow({ ip: '192.168.1.11', node: 'n1' }, db, 8000))).toBe(true);
    expect(allowed([denyIngress('cicd')], flow({ ip: '192.168.1.12', node: 'n2' }, db, 8000))).toBe(false);
  });

  test('an address is no pod: no policy applies at that end', () => {
    const verdict = evaluateFlow([denyAll('cicd')], flow({ ip: '192.168.1.50' }, { ip: '1.1.1.1' }, 443));
    expect(verdict.egress).toMatchObject({ isPod: false, allowed: true });
    expect(verdict.ingress).toMatchObject({ isPod: false, allowed: true });
  });
});

// ---- peers ----------------------------------------------------------------------------------------------------

describe('peers', () => {
  const base = [denyIngress('cicd')];

  test('podSelector alone selects pods of the policy\'s own namespace ("Otherwise it selects the pods matching podSelector in the policy\'s own namespace.")', () => {
    const policies = [...base, allowIntoDb([{ podSelector: { matchLabels: { app: 'forgejo' } } }])];
    expect(allowed(policies, flow(FORGEJO, DB, 5432))).toBe(true);
    // APP has the same labels, in another namespace.
    const verdict = evaluateFlow(policies, flow(APP, DB, 5432));
    expect(verdict.allowed).toBe(false);
    expect(verdict.ingress.rejectedRules).toContain(
      'cicd/db-ingress ingress[0]: peer does not match (podSelector {app=forgejo}: selects only namespace cicd, the pod is in apps)');
  });

  test('namespaceSelector alone selects every pod of the selected namespaces ("Otherwise it selects all pods in the namespaces selected by namespaceSelector.")', () => {
    const policies = [...base, allowIntoDb([{ namespaceSelector: { matchLabels: { team: 'data' } } }])];
    const namespaces = [{ name: 'ddb', labels: { team: 'data' } }];
    expect(allowed(policies, flow(DDB, DB, 5432), { namespaces })).toBe(true);
    expect(allowed(policies, flow(APP, DB, 5432), { namespaces })).toBe(false);
  });

  test('namespaceSelector {} selects all namespaces ("if present but empty, it selects all namespaces")', () => {
    const policies = [...base, allowIntoDb([{ namespaceSelector: {} }])];
    expect(allowed(policies, flow(APP, DB, 5432))).toBe(true);
    expect(allowed(policies, flow({ ip: '192.168.1.50' }, DB, 5432))).toBe(false);
  });

  test('every namespace carries kubernetes.io/metadata.name (set by the API server), merged with the labels given', () => {
    const policies = [...base, allowIntoDb([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ddb', team: 'data' } } }])];
    expect(allowed(policies, flow(DDB, DB, 5432), { namespaces: [{ name: 'ddb', labels: { team: 'data' } }] })).toBe(true);
    expect(allowed(policies, flow(DDB, DB, 5432))).toBe(false);
  });

  test('trap: namespaceSelector and podSelector in ONE peer are ANDed ("selects particular Pods within particular namespaces")', () => {
    const policies = [...base, allowIntoDb([{
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ddb' } }, podSelector: { matchLabels: { app: 'ddb' } },
    }])];
    expect(allowed(policies, flow(DDB, DB, 5432))).toBe(true);
    // the right pod labels in the wrong namespace, and the right namespace with the wrong labels
    expect(allowed(policies, flow({ ...DDB, namespace: 'apps' }, DB, 5432))).toBe(false);
    expect(allowed(policies, flow({ ...DDB, labels: { app: 'other' } }, DB, 5432))).toBe(false);
  });

  test('trap: namespaceSelector and podSelector as TWO peers are ORed ("allows connections from Pods in the local Namespace with the label role=client, or from any Pod in any namespace with the label user=alice")', () => {
    const policies = [...base, allowIntoDb([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ddb' } } },
      { podSelector: { matchLabels: { app: 'ddb' } } },
    ])];
    // any pod of namespace ddb, whatever its labels
    expect(allowed(policies, flow({ ...DDB, labels: { app: 'other' } }, DB, 5432))).toBe(true);
    // a pod labelled app=ddb in the policy's own namespace
    expect(allowed(policies, flow({ namespace: 'cicd', labels: { app: 'ddb' } }, DB, 5432))).toBe(true);
    // but not app=ddb in a third namespace
    expect(allowed(policies, flow({ namespace: 'apps', labels: { app: 'ddb' } }, DB, 5432))).toBe(false);
  });

  test('an empty or missing from list matches all sources ("If this field is empty or missing, this rule matches all sources")', () => {
    expect(allowed([...base, allowIntoDb(undefined)], flow({ ip: '203.0.113.9' }, DB, 5432))).toBe(true);
    expect(allowed([...base, allowIntoDb([])], flow(APP, DB, 5432))).toBe(true);
  });

  test('an ingress rule {} admits everything', () => {
    const allowAll = policy('cicd', 'allow-all', { podSelector: {}, ingress: [{}] });
    expect(allowed([...base, allowAll], flow({ ip: '203.0.113.9' }, DB, 1, 'UDP'))).toBe(true);
  });

  test('an empty or missing to list matches all destinations ("If this field is empty or missing, this rule matches all destinations")', () => {
    const egressAnywhere443 = policy('cicd', 'https-out', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ port: 443 }] }] });
    expect(allowed([egressAnywhere443], flow(FORGEJO, { ip: '140.82.112.3' }, 443))).toBe(true);
    expect(allowed([egressAnywhere443], flow(FORGEJO, { ip: '140.82.112.3' }, 22))).toBe(false);
  });
});

// ---- ipBlock --------------------------------------------------------------------------------------------------

describe('ipBlock', () => {
  const egressTo = (ipBlock: { cidr: string; except?: string[] }): NetworkPolicyJson[] =>
    [policy('cicd', 'egress', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock }] }] })];

  test('an IPv4 cidr matches the addresses in it', () => {
    expect(allowed(egressTo({ cidr: '192.168.1.0/24' }), flow(FORGEJO, { ip: '192.168.1.165' }, 443))).toBe(true);
    expect(allowed(egressTo({ cidr: '192.168.1.0/24' }), flow(FORGEJO, { ip: '192.168.2.1' }, 443))).toBe(false);
  });

  test('trap: except carves out of the cidr ("all of 172.17.0.0/16 except 172.17.1.0/24")', () => {
    const policies = egressTo({ cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] });
    expect(allowed(policies, flow(FORGEJO, { ip: '172.17.0.255' }, 80))).toBe(true);
    expect(allowed(policies, flow(FORGEJO, { ip: '172.17.2.0' }, 80))).toBe(true);
    const verdict = evaluateFlow(policies, flow(FORGEJO, { ip: '172.17.1.7' }, 80));
    expect(verdict.allowed).toBe(false);
    expect(verdict.egress.rejectedRules).toEqual(['cicd/egress egress[0]: peer does not match (172.17.1.7 is not in 172.17.0.0/16 except 172.17.1.0/24)']);
  });

  test('IPv6 cidrs and excepts ("Valid examples are "192.168.1.0/24" or "2001:db8::/64"")', () => {
    const policies = egressTo({ cidr: '2001:db8::/32', except: ['2001:db8:ff::/48'] });
    expect(allowed(policies, flow(FORGEJO, { ip: '2001:db8:1::5' }, 443))).toBe(true);
    expect(allowed(policies, flow(FORGEJO, { ip: '2001:db8:ff::5' }, 443))).toBe(false);
    expect(allowed(policies, flow(FORGEJO, { ip: '2001:db9::1' }, 443))).toBe(false);
  });

  test('an IPv4 address never matches an IPv6 block, and the reverse', () => {
    expect(allowed(egressTo({ cidr: '::/0' }), flow(FORGEJO, { ip: '1.2.3.4' }, 443))).toBe(false);
    expect(allowed(egressTo({ cidr: '0.0.0.0/0' }), flow(FORGEJO, { ip: '2001:db8::1' }, 443))).toBe(false);
  });

  test('by default an ipBlock matches no pod, even one whose IP lies in it ("These should be cluster-external IPs, since Pod IPs are ephemeral and unpredictable.")', () => {
    const policies = egressTo({ cidr: '10.244.0.0/16' });
    const verdict = evaluateFlow(policies, flow(FORGEJO, DB, 5432));
    expect(verdict.allowed).toBe(false);
    expect(verdict.egress.rejectedRules[0]).toMatch(/ipBlock 10\.244\.0\.0\/16 matches no pod \(ipBlockMatchesPods is off\)/);
    // The choice is the caller's: with ipBlockMatchesPods the pod's IP is matched.
    expect(allowed(policies, flow(FORGEJO, DB, 5432), { ipBlockMatchesPods: true })).toBe(true);
  });

  test('by default an ipBlock matches no node address (Cilium\'s policy-cidr-match-mode without "nodes"); ipBlockMatchesNodes turns it on', () => {
    const policies = egressTo({ cidr: '192.168.1.0/24' });
    const apiServer = { ip: '192.168.1.10', node: 'cp-1' };
    const verdict = evaluateFlow(policies, flow(FORGEJO, apiServer, 6443));
    expect(verdict.allowed).toBe(false);
    expect(verdict.egress.rejectedRules).toEqual([
      'cicd/egress egress[0]: peer does not match (ipBlock 192.168.1.0/24 matches no node address (ipBlockMatchesNodes is off; 192.168.1.10 is node cp-1))',
    ]);
    expect(allowed(policies, flow(FORGEJO, apiServer, 6443), { ipBlockMatchesNodes: true })).toBe(true);
    // the same address, not marked as a node, is an ordinary LAN host
    expect(allowed(policies, flow(FORGEJO, { ip: '192.168.1.10' }, 6443))).toBe(true);
  });

  test('an { ip } endpoint that is a known pod\'s IP is that pod: selectors apply to it, an ipBlock does not', () => {
    const policies = [denyIngress('cicd'), allowIntoDb([{ podSelector: { matchLabels: { app: 'forgejo' } } }])];
    expect(allowed(policies, flow({ ip: FORGEJO.ip! }, DB, 5432), { pods: [FORGEJO] })).toBe(true);
    expect(allowed(policies, flow({ ip: FORGEJO.ip! }, DB, 5432))).toBe(false);
  });

  test('fails on an except outside the cidr ("Except values will be rejected if they are outside the cidr range")', () => {
    expect(() => evaluateFlow(egressTo({ cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] }), flow(FORGEJO, { ip: '10.0.0.1' }, 1)))
      .toThrow("NetworkPolicy cicd/egress: spec.egress[0].to[0].ipBlock.except[0]: '192.168.0.0/16' is outside the cidr 10.0.0.0/8;");
  });

  test('fails on a cidr that is not one', () => {
    expect(() => evaluateFlow(egressTo({ cidr: '10.0.0.0' }), flow(FORGEJO, { ip: '10.0.0.1' }, 1)))
      .toThrow("NetworkPolicy cicd/egress: spec.egress[0].to[0].ipBlock.cidr: '10.0.0.0' is not a CIDR;");
    expect(() => evaluateFlow(egressTo({ cidr: '10.0.0.0/33' }), flow(FORGEJO, { ip: '10.0.0.1' }, 1))).toThrow(/is not a CIDR/);
  });

  test('fails on an ipBlock combined with a selector ("If this field is set then neither of the other fields can be.")', () => {
    const p = policy('cicd', 'mixed', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] });
    expect(() => evaluateFlow([p], flow(APP, DB, 1))).toThrow('NetworkPolicy cicd/mixed: spec.ingress[0].from[0]: ipBlock cannot be combined');
  });
});

// ---- ports ----------------------------------------------------------------------------------------------------

describe('ports', () => {
  const withPorts = (ports: NetworkPolicyPortJson[]): NetworkPolicyJson[] => [denyIngress('cicd'), allowIntoDb(undefined, ports)];

  test('a numeric port matches that port only', () => {
    expect(allowed(withPorts([{ port: 5432 }]), flow(FORGEJO, DB, 5432))).toBe(true);
    const verdict = evaluateFlow(withPorts([{ port: 5432 }]), flow(FORGEJO, DB, 9187));
    expect(verdict.allowed).toBe(false);
    expect(verdict.ingress.rejectedRules).toContain('cicd/db-ingress ingress[0]: port 9187/TCP not in [5432/TCP]');
  });

  test('the protocol defaults to TCP ("If not specified, this field defaults to TCP.")', () => {
    expect(allowed(withPorts([{ port: 53 }]), flow(FORGEJO, DB, 53, 'UDP'))).toBe(false);
    expect(allowed(withPorts([{ port: 53, protocol: 'UDP' }]), flow(FORGEJO, DB, 53, 'UDP'))).toBe(true);
    expect(allowed(withPorts([{ port: 53, protocol: 'UDP' }]), flow(FORGEJO, DB, 53))).toBe(false);
  });

  test('a protocol without a port matches every port of it ("If this field is not provided, this matches all port names and numbers.")', () => {
    expect(allowed(withPorts([{ protocol: 'UDP' }]), flow(FORGEJO, DB, 4789, 'UDP'))).toBe(true);
    expect(allowed(withPorts([{ protocol: 'UDP' }]), flow(FORGEJO, DB, 4789))).toBe(false);
  });

  test('endPort makes an inclusive range ("the range of ports from port to endPort if set, inclusive")', () => {
    const policies = withPorts([{ port: 32000, endPort: 32768 }]);
    expect([31999, 32000, 32768, 32769].map((p) => allowed(policies, flow(FORGEJO, DB, p)))).toEqual([false, true, true, false]);
  });

  test('an empty ports list matches all ports ("If this field is empty or missing, this rule matches all ports")', () => {
    expect(allowed(withPorts([]), flow(FORGEJO, DB, 1, 'SCTP'))).toBe(true);
  });

  test('trap: a named port resolves against the destination pod\'s container ports ("This can either be a numerical or named port on a pod.")', () => {
    const policies = withPorts([{ port: 'postgresql' }]);
    expect(allowed(policies, flow(FORGEJO, DB, 5432))).toBe(true);
    // 9187 is the pod's 'metrics' port, not 'postgresql'
    expect(allowed(policies, flow(FORGEJO, DB, 9187))).toBe(false);
    // a pod without that named port: the name resolves to nothing
    expect(allowed(policies, flow(FORGEJO, { ...DB, ports: [] }, 5432))).toBe(false);
  });

  test('a named port of an egress rule resolves against the destination pod too, and never matches an address', () => {
    const p = policy('cicd', 'to-db', { podSelector: { matchLabels: { app: 'forgejo' } }, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'postgresql' }] }] });
    expect(allowed([p], flow(FORGEJO, DB, 5432))).toBe(true);
    expect(allowed([p], flow(FORGEJO, { ip: '203.0.113.9' }, 5432))).toBe(false);
  });

  test('a named port carries its container port\'s protocol', () => {
    const dns: PodModel = { namespace: 'cicd', labels: { 'cnpg.io/cluster': 'forgejo-db' }, ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }] };
    expect(allowed(withPorts([{ port: 'dns', protocol: 'UDP' }]), flow(FORGEJO, dns, 53, 'UDP'))).toBe(true);
    expect(allowed(withPorts([{ port: 'dns' }]), flow(FORGEJO, dns, 53, 'UDP'))).toBe(false);
  });

  test('fails on an endPort with a named port ("This field cannot be defined if ... the port field is defined as a named (string) port.")', () => {
    expect(() => evaluateFlow(withPorts([{ port: 'postgresql', endPort: 6000 }]), flow(FORGEJO, DB, 5432)))
      .toThrow('NetworkPolicy cicd/db-ingress: spec.ingress[0].ports[0].endPort: needs a numeric port, got "postgresql"');
  });

  test('fails on an endPort below port ("The endPort must be equal or greater than port.")', () => {
    expect(() => evaluateFlow(withPorts([{ port: 5432, endPort: 5000 }]), flow(FORGEJO, DB, 5432)))
      .toThrow('spec.ingress[0].ports[0].endPort: 5000 is less than port 5432; endPort must be >= port.');
  });
});

// ---- label selectors ------------------------------------------------------------------------------------------

describe('label selectors', () => {
  const labels = { app: 'forgejo', tier: 'web' };

  test('matchLabels and matchExpressions are ANDed; {} selects everything', () => {
    expect(selectorMatches({}, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { app: 'forgejo' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] }, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { app: 'forgejo' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] }, labels)).toBe(false);
  });

  test.each([
    ['In', ['web', 'api'], true], ['In', ['db'], false],
    ['NotIn', ['db'], true], ['NotIn', ['web'], false],
    ['Exists', undefined, true], ['DoesNotExist', undefined, false],
  ])('%s %j on a present label: %s', (operator, values, expected) => {
    expect(selectorMatches({ matchExpressions: [{ key: 'tier', operator, values }] }, labels)).toBe(expected);
  });

  test.each([
    ['In', ['web'], false], ['NotIn', ['web'], true], ['Exists', undefined, false], ['DoesNotExist', undefined, true],
  ])('%s %j on an absent label: %s', (operator, values, expected) => {
    expect(selectorMatches({ matchExpressions: [{ key: 'zone', operator, values }] }, labels)).toBe(expected);
  });

  test('fails on an unknown operator and on values that contradict the operator', () => {
    expect(() => selectorMatches({ matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] }, labels))
      .toThrow("selector.matchExpressions[0].operator: 'in' is not a label selector operator; use In, NotIn, Exists or DoesNotExist.");
    expect(() => selectorMatches({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, labels)).toThrow('operator In needs at least one value');
    expect(() => selectorMatches({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, labels)).toThrow('operator Exists takes no values');
  });

  test('a policy\'s podSelector with matchExpressions decides which pods it isolates', () => {
    const p = policy('cicd', 'not-db', { podSelector: { matchExpressions: [{ key: 'cnpg.io/cluster', operator: 'DoesNotExist' }] }, policyTypes: ['Ingress'] });
    expect(allowed([p], flow(APP, FORGEJO, 3000))).toBe(false);
    expect(allowed([p], flow(APP, DB, 5432))).toBe(true);
  });
});

// ---- malformed policies ---------------------------------------------------------------------------------------

describe('malformed policies', () => {
  test('fails on a policy without a namespace, naming it and the fix', () => {
    const p: NetworkPolicyJson = { kind: 'NetworkPolicy', metadata: { name: 'x' }, spec: { podSelector: {} } };
    expect(() => evaluateFlow([p], flow(APP, DB, 1))).toThrow('NetworkPolicy ?/x: metadata.namespace is missing; set the namespace the policy belongs to.');
  });

  test('fails on a peer with no selector (the API server refuses it; it must not read as "everything")', () => {
    const p = policy('cicd', 'empty-peer', { podSelector: {}, ingress: [{ from: [{}] }] });
    expect(() => evaluateFlow([p], flow(APP, DB, 1))).toThrow('NetworkPolicy cicd/empty-peer: spec.ingress[0].from[0]: a peer needs podSelector, namespaceSelector or ipBlock');
  });

  test('fails on a flow whose port is not a port number', () => {
    expect(() => evaluateFlow([], flow(APP, DB, 70000))).toThrow('flow apps/app -> cicd/forgejo-db-1: port 70000 is not a port number; use 1-65535.');
  });

  test('fails on an unknown policy type', () => {
    const p = policy('cicd', 'typo', { podSelector: {}, policyTypes: ['ingress'] });
    expect(() => evaluateFlow([p], flow(APP, DB, 1))).toThrow("NetworkPolicy cicd/typo: spec.policyTypes[0] is 'ingress'; use Ingress or Egress.");
  });
});

// ---- the input as cdk8s writes it, and the explanation ---------------------------------------------------------

describe('cdk8s input and explanations', () => {
  // The policies a construct defines, read back as cdk8s synthesizes them: ports as IntOrString, camelCase keys.
  function synthesized(): NetworkPolicyJson[] {
    const chart = Testing.chart();
    new k8s.KubeNetworkPolicy(chart, 'Deny', { metadata: { name: 'default-deny', namespace: 'cicd' }, spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] } });
    new k8s.KubeNetworkPolicy(chart, 'Db', {
      metadata: { name: 'forgejo-db-ingress', namespace: 'cicd' },
      spec: {
        podSelector: { matchLabels: { 'cnpg.io/cluster': 'forgejo-db' } },
        policyTypes: ['Ingress'],
        ingress: [{
          from: [{ podSelector: { matchLabels: { app: 'forgejo' } } }],
          ports: [{ port: k8s.IntOrString.fromString('postgresql') }, { port: k8s.IntOrString.fromNumber(9187), protocol: 'TCP' }],
        }],
      },
    });
    new k8s.KubeNetworkPolicy(chart, 'Forgejo', {
      metadata: { name: 'forgejo-egress', namespace: 'cicd' },
      spec: {
        podSelector: { matchLabels: { app: 'forgejo' } },
        policyTypes: ['Egress'],
        egress: [{ to: [{ podSelector: { matchLabels: { 'cnpg.io/cluster': 'forgejo-db' } } }], ports: [{ port: k8s.IntOrString.fromNumber(5432) }] }],
      },
    });
    return Testing.synth(chart) as NetworkPolicyJson[];
  }

  test('evaluates KubeNetworkPolicy.toJson() output', () => {
    const policies = synthesized();
    const verdict = evaluateFlow(policies, flow(FORGEJO, DB, 5432));
    expect(verdict).toMatchObject({
      allowed: true,
      egress: { isolated: true, isolatedBy: ['cicd/default-deny', 'cicd/forgejo-egress'], allowedBy: ['cicd/forgejo-egress'] },
      ingress: { isolated: true, isolatedBy: ['cicd/default-deny', 'cicd/forgejo-db-ingress'], allowedBy: ['cicd/forgejo-db-ingress'] },
    });
  });

  test('explainFlow prints one line per decision and, on a denial, why each rule does not admit the flow', () => {
    const verdict = evaluateFlow(synthesized(), { from: DDB, to: { namespace: 'cicd', labels: { 'cnpg.io/cluster': 'forgejo-db' } }, port: 5432 });
    expect(explainFlow(verdict).split('\n')).toEqual([
      'ddb/ddb -> cicd/[cnpg.io/cluster=forgejo-db] 5432/TCP: DENIED',
      '  egress: allowed: no policy with Egress in its policyTypes selects ddb/ddb; not isolated for egress',
      '  ingress: denied: cicd/[cnpg.io/cluster=forgejo-db] is isolated for ingress by cicd/default-deny, cicd/forgejo-db-ingress and no ingress rule admits the flow',
      '    cicd/default-deny: no ingress rules (isolates only)',
      '    cicd/forgejo-db-ingress ingress[0]: peer does not match (podSelector {app=forgejo}: selects only namespace cicd, the pod is in ddb); '
        + 'port 5432/TCP not in [postgresql/TCP, 9187/TCP] (the destination declares no container port named postgresql)',
    ]);
  });

  test('explainFlow names the admitting rules of an allowed flow', () => {
    const text = explainFlow(evaluateFlow(synthesized(), flow(FORGEJO, DB, 5432)));
    expect(text.split('\n')).toEqual([
      'cicd/forgejo -> cicd/forgejo-db-1 5432/TCP: ALLOWED',
      '  egress: allowed: cicd/forgejo is isolated for egress by cicd/default-deny, cicd/forgejo-egress; admitted by cicd/forgejo-egress egress[0]',
      '  ingress: allowed: cicd/forgejo-db-1 is isolated for ingress by cicd/default-deny, cicd/forgejo-db-ingress; admitted by cicd/forgejo-db-ingress ingress[0]',
    ]);
  });
});

describe('flow tables', () => {
  const policies = [denyIngress('cicd'), allowIntoDb([{ podSelector: { matchLabels: { app: 'forgejo' } } }], [{ port: 5432 }])];

  test('a table whose verdicts are as expected yields nothing', () => {
    expect(unexpectedVerdicts(policies, [
      { from: FORGEJO, to: DB, port: 5432, expect: 'allow', why: 'Forgejo references its database' },
      { from: APP, to: DB, port: 5432, expect: 'deny', why: 'an app namespace must not reach the database' },
    ])).toEqual([]);
  });

  test('a row with the wrong verdict is reported with its reason and the explanation', () => {
    const failures = unexpectedVerdicts(policies, [
      { from: { namespace: 'ddb', labels: { app: 'ddb' } }, to: { namespace: 'cicd', labels: { 'cnpg.io/cluster': 'forgejo-db' } }, port: 5432, expect: 'allow',
        why: 'ddb reads the database' },
      { from: FORGEJO, to: DB, port: 5432, expect: 'deny' },
    ]);
    expect(failures).toEqual([
      'expected allow (ddb reads the database), got:\n'
        + 'ddb/[app=ddb] -> cicd/[cnpg.io/cluster=forgejo-db] 5432/TCP: DENIED\n'
        + '  egress: allowed: no policy with Egress in its policyTypes selects ddb/[app=ddb]; not isolated for egress\n'
        + '  ingress: denied: cicd/[cnpg.io/cluster=forgejo-db] is isolated for ingress by cicd/db-ingress, cicd/deny-ingress and no ingress rule admits the flow\n'
        + '    cicd/db-ingress ingress[0]: peer does not match (podSelector {app=forgejo}: selects only namespace cicd, the pod is in ddb)\n'
        + '    cicd/deny-ingress: no ingress rules (isolates only)',
      expect.stringMatching(/^expected deny, got:\ncicd\/forgejo -> cicd\/forgejo-db-1 5432\/TCP: ALLOWED\n/),
    ]);
  });
});

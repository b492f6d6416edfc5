import { Chart, Testing } from 'cdk8s';
import { NetworkIsolation, NetworkIsolationProps } from '../../../lib/constructs/network/network-isolation';
import { KUBERNETES_API, outsideCluster, podPeer } from '../../../lib/shared/network';
import { find } from '../../util';

const PROPS: NetworkIsolationProps = {
  isolatedNamespaces: ['cicd', 'argocd'],
  kubernetesApiCidrs: ['192.168.1.10/32', '192.168.1.11/32'],
  clusterCidrs: ['10.244.0.0/16', '10.96.0.0/12'],
};
const APP = podPeer('cicd', 'app', { 'app.kubernetes.io/name': 'app' });
const DB = podPeer('cicd', 'db', { 'cnpg.io/cluster': 'db' });
const REPO = podPeer('argocd', 'repo', { 'app.kubernetes.io/name': 'argocd-repo-server' });
const OPEN = podPeer('apps', 'web', { app: 'web' });
const DNS_RULE = {
  to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
  ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }],
};

function isolation(props: Partial<NetworkIsolationProps> = {}): { chart: Chart; network: NetworkIsolation } {
  const chart = Testing.chart();
  return { chart, network: new NetworkIsolation(chart, 'Isolation', { ...PROPS, ...props }) };
}

const policies = (chart: Chart) => Testing.synth(chart).filter((m) => m.kind === 'NetworkPolicy');

describe('NetworkIsolation', () => {
  test('defines a default-deny policy (every pod, ingress and egress, no rule) per isolated namespace, sorted', () => {
    const { chart, network } = isolation({ isolatedNamespaces: ['cicd', 'argocd', 'cicd'] });
    expect(network.isolatedNamespaces).toEqual(['argocd', 'cicd']);
    const deny = policies(chart);
    expect(deny.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual(['cicd/default-deny', 'argocd/default-deny']);
    expect(deny[0].spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
  });

  test('defaults: the API server on 6443, CoreDNS as kube-dns in kube-system', () => {
    const { network } = isolation();
    expect(network.kubernetesApiPort).toBe(6443);
    expect(network.clusterDns).toEqual({ namespace: 'kube-system', podSelector: { 'k8s-app': 'kube-dns' }, port: 53 });
  });

  test('a flow between two isolated workloads: egress at the source (with DNS), ingress at the target (without)', () => {
    // GIVEN
    const { chart, network } = isolation();
    // WHEN
    network.addFlow({ from: APP, to: DB, ports: [{ port: 5432, name: 'postgresql' }], reason: 'app.database' });
    // THEN
    const out = Testing.synth(chart);
    const app = find(out, 'NetworkPolicy', 'allow-app');
    expect(app.metadata.namespace).toBe('cicd');
    expect(app.spec.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'app' } });
    expect(app.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    // no rule is no key: the API server stores no empty list, so `[]` would be rewritten on every apply
    expect(app.spec).not.toHaveProperty('ingress');
    // same namespace: a podSelector alone
    expect(app.spec.egress).toEqual([DNS_RULE, { to: [{ podSelector: { matchLabels: { 'cnpg.io/cluster': 'db' } } }], ports: [{ port: 5432, protocol: 'TCP' }] }]);
    const db = find(out, 'NetworkPolicy', 'allow-db');
    expect(db.spec).not.toHaveProperty('egress');
    expect(db.spec.ingress).toEqual([{ from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'app' } } }], ports: [{ port: 5432, protocol: 'TCP' }] }]);
  });

  test('across namespaces a peer names its namespace; a source outside the isolated namespaces gets no policy', () => {
    const { chart, network } = isolation();
    network.addFlow({ from: REPO, to: APP, ports: [{ port: 3000 }], reason: 'git' });
    network.addFlow({ from: OPEN, to: APP, ports: [{ port: 3000 }], reason: 'web' });
    const out = Testing.synth(chart);
    expect(find(out, 'NetworkPolicy', 'allow-app').spec.ingress).toEqual([
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'apps' } }, podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 3000, protocol: 'TCP' }] },
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'argocd' } }, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'argocd-repo-server' } } }], ports: [{ port: 3000, protocol: 'TCP' }] },
    ]);
    expect(policies(chart).map((p) => p.metadata.name)).not.toContain('allow-web');
    expect(network.flows.map((f) => [f.from.kind === 'pods' ? f.from.name : f.from.kind, f.egressPolicy, f.ingressPolicy])).toEqual([
      ['apps/web', undefined, 'cicd/allow-app'],
      ['argocd/repo', 'argocd/allow-repo', 'cicd/allow-app'],
    ]);
  });

  test('the API server: its CIDRs and port, whatever ports the flow names; and as a source (webhooks) on the target\'s port', () => {
    const { chart, network } = isolation({ kubernetesApiPort: 443 });
    network.addFlow({ from: APP, to: KUBERNETES_API, ports: [], reason: 'reads its Secret' });
    network.addFlow({ from: KUBERNETES_API, to: APP, ports: [{ port: 9443 }], reason: 'webhook' });
    const app = find(Testing.synth(chart), 'NetworkPolicy', 'allow-app');
    expect(app.spec.egress).toContainEqual({ to: [{ ipBlock: { cidr: '192.168.1.10/32' } }, { ipBlock: { cidr: '192.168.1.11/32' } }], ports: [{ port: 443, protocol: 'TCP' }] });
    expect(app.spec.ingress).toEqual([{ from: [{ ipBlock: { cidr: '192.168.1.10/32' } }, { ipBlock: { cidr: '192.168.1.11/32' } }], ports: [{ port: 9443, protocol: 'TCP' }] }]);
    expect(network.flows.find((f) => f.to.kind === 'kubernetes-api')?.ports).toEqual([{ port: 443, name: 'https' }]);
  });

  test('outside the cluster is every address but the cluster\'s own CIDRs', () => {
    const { chart, network } = isolation();
    network.addFlow({ from: APP, to: outsideCluster('github.com'), ports: [{ port: 443 }], reason: 'mirror' });
    expect(find(Testing.synth(chart), 'NetworkPolicy', 'allow-app').spec.egress).toContainEqual({
      to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.244.0.0/16', '10.96.0.0/12'] } }],
      ports: [{ port: 443, protocol: 'TCP' }],
    });
  });

  test('selected pods: every namespace is an empty namespaceSelector; one namespace\'s every pod has no podSelector', () => {
    const { chart, network } = isolation();
    network.addFlow({ from: APP, to: { kind: 'selected-pods', name: 'instances', podSelector: { 'cnpg.io/podRole': 'instance' } }, ports: [{ port: 8000 }], reason: 'status' });
    network.addFlow({ from: APP, to: { kind: 'selected-pods', name: 'minio/*', namespace: 'minio' }, ports: [{ port: 9000 }], reason: 's3' });
    const egress = find(Testing.synth(chart), 'NetworkPolicy', 'allow-app').spec.egress;
    expect(egress).toContainEqual({ to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'cnpg.io/podRole': 'instance' } } }], ports: [{ port: 8000, protocol: 'TCP' }] });
    expect(egress).toContainEqual({ to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'minio' } } }], ports: [{ port: 9000, protocol: 'TCP' }] });
  });

  test('allPorts: a rule without ports (every port)', () => {
    const { chart, network } = isolation();
    const everyPod = podPeer('cicd', 'everyone', {});
    network.addFlow({ from: everyPod, to: everyPod, ports: [], allPorts: true, reason: 'isolate' });
    const policy = find(Testing.synth(chart), 'NetworkPolicy', 'allow-everyone');
    // an empty selector is `{}`, never `{ matchLabels: {} }`, which the API server stores as `{}` and a re-apply rewrites
    expect(policy.spec.podSelector).toEqual({});
    expect(policy.spec.ingress).toEqual([{ from: [{ podSelector: {} }] }]);
    expect(policy.spec.egress).toContainEqual({ to: [{ podSelector: {} }] });
  });

  test('place(): the allow policy is written in the given scope, not the isolation\'s chart', () => {
    // GIVEN
    const app = Testing.app();
    const denyChart = new Chart(app, 'Namespaces');
    const stepChart = new Chart(app, 'Step');
    const network = new NetworkIsolation(denyChart, 'Isolation', PROPS);
    // WHEN
    network.place(DB, stepChart);
    network.addFlow({ from: APP, to: DB, ports: [{ port: 5432 }], reason: 'db' });
    // THEN
    expect(Testing.synth(stepChart).map((m) => m.metadata.name)).toEqual(['allow-db']);
    expect(Testing.synth(denyChart).map((m) => m.metadata.name)).toEqual(['default-deny', 'default-deny', 'allow-app']);
  });

  test('isolateNamespace(): one default-deny per namespace, in the scope of the first call', () => {
    // GIVEN
    const app = Testing.app();
    const own = new Chart(app, 'Own');
    const first = new Chart(app, 'First');
    const second = new Chart(app, 'Second');
    const network = new NetworkIsolation(own, 'Isolation', { ...PROPS, isolatedNamespaces: [] });
    // WHEN
    network.isolateNamespace('apps', first);
    network.isolateNamespace('apps', second);
    network.isolateNamespace('tools');
    // THEN
    expect(network.isIsolated('apps')).toBe(true);
    expect(network.isolatedNamespaces).toEqual(['apps', 'tools']);
    expect(Testing.synth(first).map((m) => `${m.metadata.namespace}/${m.metadata.name}`)).toEqual(['apps/default-deny']);
    expect(Testing.synth(second)).toEqual([]);
    expect(Testing.synth(own).map((m) => `${m.metadata.namespace}/${m.metadata.name}`)).toEqual(['tools/default-deny']);
  });

  test('the same rules in any order synthesize to the same bytes', () => {
    const flows = [
      { from: APP, to: DB, ports: [{ port: 5432 }], reason: 'a' },
      { from: APP, to: outsideCluster('x'), ports: [{ port: 443 }], reason: 'b' },
      { from: APP, to: KUBERNETES_API, ports: [], reason: 'c' },
    ];
    const one = isolation();
    flows.forEach((f) => one.network.addFlow(f));
    const two = isolation();
    [...flows].reverse().forEach((f) => two.network.addFlow(f));
    expect(JSON.stringify(Testing.synth(one.chart))).toBe(JSON.stringify(Testing.synth(two.chart)));
  });

  test('throws when no API server CIDR is given', () => {
    expect(() => isolation({ kubernetesApiCidrs: [] })).toThrow("'kubernetesApiCidrs' must name at least one CIDR");
  });

  test('throws on a flow without ports, and on ports with allPorts', () => {
    const { network } = isolation();
    expect(() => network.addFlow({ from: APP, to: DB, ports: [], reason: 'db' })).toThrow("flow 'db' names no port");
    expect(() => network.addFlow({ from: APP, to: DB, ports: [{ port: 1 }], allPorts: true, reason: 'db' })).toThrow("flow 'db' names ports and allPorts");
  });

  test('throws when two workloads share a name but not their pods, or when placed after their policy exists', () => {
    const { chart, network } = isolation();
    network.addFlow({ from: APP, to: DB, ports: [{ port: 5432 }], reason: 'db' });
    expect(() => network.addFlow({ from: podPeer('cicd', 'app', { other: 'x' }), to: DB, ports: [{ port: 1 }], reason: 'x' }))
      .toThrow("two workloads are named 'cicd/app' with different pods");
    expect(() => network.place(APP, chart)).toThrow("the policy of 'cicd/app' is already defined");
  });
});

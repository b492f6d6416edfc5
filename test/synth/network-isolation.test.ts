import YAML from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { peerName } from '../../lib/shared/network';
import ddbCluster from '../../examples/ddb-cluster.config';
import { HomelabConfig } from '../../lib/config/homelab-config';

/** The allow list as `from -> to: ports`, one line per flow, in the isolation's order. */
function allowList(config: HomelabConfig): string[] {
  const { bootstrap } = synthesizeHomelab(config);
  return bootstrap.network!.flows.map((f) => `${peerName(f.from)} -> ${peerName(f.to)}: ${f.allPorts ? 'all' : f.ports.map((p) => p.port).join(',')}`);
}

function docs(content: string | undefined): any[] {
  if (content === undefined) throw new Error('no such file');
  return YAML.parseAllDocuments(content).map((d) => d.toJSON()).filter((d) => d);
}

/** Argo CD's own flows, the same in every config: its components, the API server, the chart repositories. */
const ARGOCD = [
  'argocd/argocd-application-controller -> Kubernetes API server: 6443',
  'argocd/argocd-application-controller -> argocd/argocd-redis: 6379',
  'argocd/argocd-application-controller -> argocd/argocd-repo-server: 8081',
  'argocd/argocd-applicationset-controller -> Kubernetes API server: 6443',
  'argocd/argocd-applicationset-controller -> argocd/argocd-repo-server: 8081',
  'argocd/argocd-dex-server -> Kubernetes API server: 6443',
  // Argo CD Image Updater (delivery.imageUpdater): the API server, Forgejo's registry, GitHub for git and pull requests
  'argocd/argocd-image-updater-controller -> Kubernetes API server: 6443',
  'argocd/argocd-image-updater-controller -> cicd/forgejo: 3000',
  'argocd/argocd-image-updater-controller -> outside the cluster: api.github.com (pull requests): 443',
  'argocd/argocd-image-updater-controller -> outside the cluster: github.com (git write-back): 443',
  'argocd/argocd-notifications-controller -> Kubernetes API server: 6443',
  'argocd/argocd-notifications-controller -> argocd/argocd-repo-server: 8081',
  'argocd/argocd-redis -> Kubernetes API server: 6443',
  'argocd/argocd-repo-server -> argocd/argocd-redis: 6379',
  'argocd/argocd-repo-server -> outside the cluster: charts.goauthentik.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: charts.jetstack.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: community-charts.github.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: coredns.github.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: github.com (git host): 22',
  'argocd/argocd-repo-server -> outside the cluster: go.temporal.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: grafana-community.github.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: grafana.github.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: helm.cilium.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: helm.releases.hashicorp.com (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: homarr-labs.github.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: kubernetes.github.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: kyverno.github.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: operator.min.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: portainer.github.io (Helm charts): 443',
  'argocd/argocd-repo-server -> outside the cluster: prometheus-community.github.io (Helm charts): 443',
  'argocd/argocd-server -> Kubernetes API server: 6443',
  'argocd/argocd-server -> argocd/argocd-dex-server: 5556,5557',
  'argocd/argocd-server -> argocd/argocd-redis: 6379',
  'argocd/argocd-server -> argocd/argocd-repo-server: 8081',
];

describe('network isolation of the synthesized homelabs: the exact allow list', () => {
  test('the reference homelab', () => {
    expect(allowList(REFERENCE_HOMELAB)).toEqual([
      'Kubernetes API server -> cnpg-system/cnpg-controller-manager: 9443',
      ...ARGOCD,
      'cicd/forgejo -> cicd/forgejo-db: 5432',
      'cicd/forgejo -> cicd/forgejo-redis: 6379',
      'cicd/forgejo -> outside the cluster: github.com (the GitHub seed): 443',
      'cicd/forgejo-backup -> cicd/forgejo-db: 5432',
      'cicd/forgejo-backup -> outside the cluster: s3.example.net (object store of Forgejo\'s dumps): 443',
      'cicd/forgejo-db -> Kubernetes API server: 6443',
      'cicd/forgejo-db -> cicd/forgejo-db: 5432,8000',
      'cicd/forgejo-db -> outside the cluster: s3.example.net (object store of walArchive): 443',
      'cicd/forgejo-mirror -> cicd/forgejo: 3000',
      'cicd/forgejo-provision -> Kubernetes API server: 6443',
      'cicd/forgejo-provision -> cicd/forgejo: 3000',
      'cicd/wait-for-forgejo-db -> Kubernetes API server: 6443',
      'cnpg-system/barman-cloud -> Kubernetes API server: 6443',
      'cnpg-system/cnpg-controller-manager -> CNPG instances in every namespace: 8000',
      'cnpg-system/cnpg-controller-manager -> Kubernetes API server: 6443',
      'cnpg-system/cnpg-controller-manager -> cicd/forgejo-db: 8000',
      'cnpg-system/cnpg-controller-manager -> cnpg-system/barman-cloud: 9090',
      'forgejo-runner/forgejo-runner -> cicd/forgejo: 3000',
      'forgejo-runner/forgejo-runner -> outside the cluster: forgejo.homelab.example (image registry): 443',
      'kyverno/kyverno-admission-controller -> cicd/forgejo: 3000',
      'monitoring/prometheus -> cicd/forgejo-db: 9187',
      'outside the cluster: clients of Service forgejo-lan -> cicd/forgejo: 3000,2222',
    ]);
  });

  test('the ddb example: its shared Phase-0 cluster in namespace ddb is reached by Forgejo, Temporal and Authentik (usedBy)', () => {
    expect(allowList(ddbCluster)).toEqual([
      'Kubernetes API server -> cnpg-system/cnpg-controller-manager: 9443',
      ...ARGOCD,
      'cicd/forgejo -> cicd/forgejo-redis: 6379',
      'cicd/forgejo -> ddb/ddb-cluster: 5432',
      'cicd/forgejo -> outside the cluster: github.com (the GitHub seed): 443',
      'cicd/forgejo-mirror -> cicd/forgejo: 3000',
      'cicd/forgejo-provision -> Kubernetes API server: 6443',
      'cicd/forgejo-provision -> cicd/forgejo: 3000',
      'cnpg-system/barman-cloud -> Kubernetes API server: 6443',
      'cnpg-system/cnpg-controller-manager -> CNPG instances in every namespace: 8000',
      'cnpg-system/cnpg-controller-manager -> Kubernetes API server: 6443',
      'cnpg-system/cnpg-controller-manager -> cnpg-system/barman-cloud: 9090',
      'cnpg-system/cnpg-controller-manager -> ddb/ddb-cluster: 8000',
      'ddb/ddb-cluster -> Kubernetes API server: 6443',
      'ddb/ddb-cluster -> ddb/ddb-cluster: 5432,8000',
      'ddb/ddb-cluster -> outside the cluster: s3.example.net (object store of walArchive): 443',
      'ddb/wait-for-ddb-cluster -> Kubernetes API server: 6443',
      'forgejo-runner/forgejo-runner -> cicd/forgejo: 3000',
      'forgejo-runner/forgejo-runner -> outside the cluster: forgejo.homelab.example (image registry): 443',
      'iam/* (authentik) -> ddb/ddb-cluster: 5432',
      'kyverno/kyverno-admission-controller -> cicd/forgejo: 3000',
      'monitoring/prometheus -> ddb/ddb-cluster: 9187',
      'outside the cluster: clients of Service forgejo-lan -> cicd/forgejo: 3000,2222',
      'temporal/* (Temporal) -> ddb/ddb-cluster: 5432',
    ]);
  });

  describe('the reference homelab\'s policies in dist/', () => {
    const { tree } = synthesizeHomelab(REFERENCE_HOMELAB);
    const policiesIn = (file: string) => docs(tree.get(file)).filter((d) => d.kind === 'NetworkPolicy').map((p) => `${p.metadata.namespace}/${p.metadata.name}`);

    test('each allow in the step of its workload, each default-deny in the first step that runs a workload in the namespace', () => {
      // never with the namespaces: a server-side dry-run of a file that creates a namespace and writes into it is refused
      expect(policiesIn('bootstrap/01-namespaces.yaml')).toEqual([]);
      expect(policiesIn('bootstrap/04-cnpg-operator/resources.yaml')).toEqual(['cnpg-system/default-deny', 'cnpg-system/allow-cnpg-controller-manager']);
      expect(policiesIn('bootstrap/05-barman-cloud-plugin/resources.yaml')).toEqual(['cnpg-system/allow-barman-cloud']);
      expect(policiesIn('bootstrap/06-postgres-forgejo-db.yaml')).toEqual(['cicd/default-deny', 'cicd/allow-forgejo-db', 'cicd/allow-wait-for-forgejo-db']);
      expect(policiesIn('bootstrap/07-forgejo.yaml').sort()).toEqual([
        'cicd/allow-forgejo', 'cicd/allow-forgejo-backup', 'cicd/allow-forgejo-mirror', 'cicd/allow-forgejo-provision', 'cicd/allow-forgejo-redis',
      ]);
      expect(policiesIn('bootstrap/08-argocd-install/resources.yaml').sort()).toEqual(['argocd/default-deny',
        ...['application-controller', 'applicationset-controller', 'dex-server', 'image-updater-controller', 'notifications-controller', 'redis',
          'repo-server', 'server']
          .map((c) => `argocd/allow-argocd-${c}`)].sort());
      expect(policiesIn('bootstrap/10-argocd-root.yaml')).toEqual([]);
    });

    test('Redis accepts Forgejo only and opens no connection at all (not even DNS)', () => {
      const redis = docs(tree.get('bootstrap/07-forgejo.yaml')).find((d) => d.kind === 'NetworkPolicy' && d.metadata.name === 'allow-forgejo-redis');
      expect(redis.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(redis.spec).not.toHaveProperty('egress');
      expect(redis.spec.ingress).toEqual([{
        from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'forgejo', 'app.kubernetes.io/name': 'forgejo' } } }],
        ports: [{ port: 6379, protocol: 'TCP' }],
      }]);
    });

    test('no empty list or empty matchLabels: the API server stores neither, so each would be rewritten on every re-run', () => {
      const policies = [...tree.entries()].filter(([f]) => f.endsWith('.yaml')).flatMap(([, c]) => docs(c as string)).filter((d) => d.kind === 'NetworkPolicy');
      expect(policies.length).toBeGreaterThan(15);
      const empty: string[] = [];
      const walk = (v: unknown, where: string): void => {
        if (Array.isArray(v)) {
          if (v.length === 0) empty.push(where);
          v.forEach((x, i) => walk(x, `${where}[${i}]`));
        } else if (v !== null && typeof v === 'object') {
          for (const [k, x] of Object.entries(v)) {
            if (k === 'matchLabels' && Object.keys(x as object).length === 0) empty.push(`${where}.${k}`);
            walk(x, `${where}.${k}`);
          }
        }
      };
      for (const p of policies) walk(p.spec, `${p.metadata.namespace}/${p.metadata.name}`);
      expect(empty).toEqual([]);
    });

    test('Cilium is told to let ipBlocks select node addresses, so the API server allow works', () => {
      expect(YAML.parse(tree.get('bootstrap/02-cilium/values.yaml') as string).policyCIDRMatchMode).toEqual(['nodes']);
    });
  });

  test('network.isolatePhase0 false writes no NetworkPolicy and leaves Cilium\'s CIDR matching as it is', () => {
    const { tree, bootstrap } = synthesizeHomelab({ ...REFERENCE_HOMELAB, network: { isolatePhase0: false } });
    expect(bootstrap.network).toBeUndefined();
    const all = [...tree.entries()].filter(([f]) => f.endsWith('.yaml')).flatMap(([, c]) => docs(c as string));
    expect(all.filter((d) => d.kind === 'NetworkPolicy')).toEqual([]);
    expect(YAML.parse(tree.get('bootstrap/02-cilium/values.yaml') as string)).not.toHaveProperty('policyCIDRMatchMode');
  });
});

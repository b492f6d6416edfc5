import YAML from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { validateConfig } from '../../lib/config/validate-config';
import { ConfigError } from '../../lib/shared/errors';
import { peerName } from '../../lib/shared/network';

function problems(config: unknown): string[] {
  return validateConfig(config as HomelabConfig).all.map((p) => `${p.path}: ${p.message}`);
}

/** The reference homelab with `network` set on one catalog Application. */
function withAppNetwork(app: string, network: Record<string, unknown>): HomelabConfig {
  const apps = REFERENCE_HOMELAB.argocd.applications!;
  return { ...REFERENCE_HOMELAB, argocd: { ...REFERENCE_HOMELAB.argocd, applications: { ...apps, [app]: { ...apps[app], network } as never } } };
}

/** The synth's config error, as its lines. */
function synthError(config: HomelabConfig): string {
  try {
    synthesizeHomelab(config);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('synthesizeHomelab did not fail');
}

describe('network config', () => {
  test('defaults: Phase-0 isolation on, the API server on the reference LAN at 6443, Talos\' pod and Service CIDRs', () => {
    expect(parseHomelabConfig(REFERENCE_HOMELAB).network).toEqual({
      isolatePhase0: true, kubernetesApiCidrs: ['192.168.1.0/24'], kubernetesApiPort: 6443, podCidr: '10.244.0.0/16', serviceCidr: '10.96.0.0/12',
    });
  });

  test('fails for a CIDR that is not one, or has host bits set, naming the path, the value and the fix', () => {
    expect(problems({ ...REFERENCE_HOMELAB, network: { kubernetesApiCidrs: ['192.168.1.10', '192.168.1.10/24'], podCidr: '10.244.0.0/33' } })).toEqual([
      'network.kubernetesApiCidrs[0]: \'192.168.1.10\' is not an IPv4 CIDR such as \'192.168.1.0/24\' or \'192.168.1.10/32\'.',
      'network.kubernetesApiCidrs[1]: \'192.168.1.10/24\' has host bits set; write \'192.168.1.0/24\' (the network the prefix covers), so the policy reads as what it matches.',
      'network.podCidr: \'10.244.0.0/33\' is not an IPv4 CIDR such as \'192.168.1.0/24\' or \'192.168.1.10/32\'.',
    ]);
  });

  test('fails for an empty API server list and a misspelled key', () => {
    const found = problems({ ...REFERENCE_HOMELAB, network: { kubernetesApiCidrs: [], isolatePhaseZero: false } });
    expect(found.some((p) => p.startsWith('network.kubernetesApiCidrs:'))).toBe(true);
    expect(found.some((p) => p.startsWith('network') && p.includes('isolatePhaseZero'))).toBe(true);
  });

  test('the API server CIDRs and port from the config are what every API allow names', () => {
    const { bootstrap } = synthesizeHomelab({ ...REFERENCE_HOMELAB, network: { kubernetesApiCidrs: ['192.168.1.10/32', '192.168.1.11/32'], kubernetesApiPort: 443 } });
    expect(bootstrap.network!.kubernetesApiCidrs).toEqual(['192.168.1.10/32', '192.168.1.11/32']);
    const api = bootstrap.network!.flows.filter((f) => f.to.kind === 'kubernetes-api');
    expect(api.length).toBeGreaterThan(5);
    expect(api.every((f) => f.ports.length === 1 && f.ports[0].port === 443)).toBe(true);
  });

  describe('argocd.applications.<name>.network', () => {
    test('isolate: a default-deny in the Application\'s namespace, its pods talk to each other, and egressTo opens what it names', () => {
      // GIVEN homarr opts in and may call the API server and HTTPS outside
      const config = withAppNetwork('homarr', { isolate: true, egressTo: ['kubernetes-api', 'outside-cluster'] });
      // WHEN
      const { bootstrap, tree } = synthesizeHomelab(config);
      // THEN
      expect(bootstrap.network!.isolatedNamespaces).toContain('homarr');
      const objects = (file: string) => YAML.parseAllDocuments(tree.get(file) as string).map((d) => d.toJSON());
      // the namespace is created in step 1; its policies come with the root app, before Argo CD syncs anything into it
      expect(objects('bootstrap/01-namespaces.yaml').some((d) => d.kind === 'Namespace' && d.metadata.name === 'homarr')).toBe(true);
      expect(objects('bootstrap/10-argocd-root.yaml').filter((d) => d.kind === 'NetworkPolicy').map((d) => `${d.metadata.namespace}/${d.metadata.name}`))
        .toEqual(['homarr/default-deny', 'homarr/allow-homarr-namespace', 'homarr/allow-homarr']);
      const flows = bootstrap.network!.flows.filter((f) => peerName(f.from).startsWith('homarr/')).map((f) => `${peerName(f.from)} -> ${peerName(f.to)}`);
      expect(flows).toEqual(['homarr/homarr -> Kubernetes API server', 'homarr/homarr -> outside the cluster: HTTPS', 'homarr/homarr-namespace -> homarr/homarr-namespace']);
    });

    test('in a Phase-0 namespace, podSelector and egressTo allow exactly those pods to reach Forgejo', () => {
      const config = withAppNetwork('cicd-config', { podSelector: { 'app.kubernetes.io/name': 'forgejo-oauth' }, egressTo: ['forgejo'] });
      const { bootstrap, tree } = synthesizeHomelab(config);
      expect(bootstrap.network!.flows.filter((f) => peerName(f.from) === 'cicd/cicd-config').map((f) => peerName(f.to))).toEqual(['cicd/forgejo']);
      const forgejo = YAML.parseAllDocuments(tree.get('bootstrap/07-forgejo.yaml') as string).map((d) => d.toJSON())
        .find((d) => d.kind === 'NetworkPolicy' && d.metadata.name === 'allow-forgejo');
      expect(forgejo.spec.ingress).toContainEqual({
        from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'forgejo-oauth' } } }], ports: [{ port: 3000, protocol: 'TCP' }],
      });
    });

    test('fails in a Phase-0 namespace without podSelector, and with isolate', () => {
      expect(synthError(withAppNetwork('cicd-config', { egressTo: ['forgejo'] }))).toContain(
        'argocd.applications.cicd-config.network.podSelector: namespace \'cicd\' holds Phase-0 workloads, so an allow for every pod there would open them too; ' +
        'set podSelector to the labels of this Application\'s pods.');
      expect(synthError(withAppNetwork('cicd-config', { isolate: true, podSelector: { a: 'b' } }))).toContain(
        'argocd.applications.cicd-config.network.isolate: namespace \'cicd\' holds Phase-0 workloads and is default-deny already');
    });

    test('fails for an unknown egress target, naming the allowed ones', () => {
      const found = problems(withAppNetwork('homarr', { egressTo: ['internet'] }));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/^argocd\.applications\.homarr\.network\.egressTo\[0\]: 'internet' is not allowed; .*'kubernetes-api'.*'forgejo'.*'outside-cluster'/);
    });
  });

  test('databases.<name>.usedBy: fails for a name that is no Application, listing them', () => {
    const config: HomelabConfig = {
      ...REFERENCE_HOMELAB,
      databases: { ...REFERENCE_HOMELAB.databases, authentik: { ...REFERENCE_HOMELAB.databases!.authentik, usedBy: ['authentic'] } },
    };
    expect(synthError(config)).toMatch(/databases\.authentik\.usedBy\.0: 'authentic' is not an Application of the tree; use one of: .*authentik,/);
  });

  test('the plan names an Application that delivers into a default-deny namespace without network', () => {
    const { tree } = synthesizeHomelab(REFERENCE_HOMELAB);
    expect(tree.get('README.md')).toContain('- `cicd-config` → namespace `cicd`');
    const { tree: fixed } = synthesizeHomelab(withAppNetwork('cicd-config', { podSelector: { app: 'oauth' }, egressTo: ['forgejo'] }));
    expect(fixed.get('README.md')).not.toContain('- `cicd-config` → namespace `cicd`');
  });
});

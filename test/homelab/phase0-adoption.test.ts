import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { DEFAULT_ARGOCD } from '../../lib/config/default-catalog';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { ConfigError } from '../../lib/shared/errors';
import { PHASE0_CHARTS } from '../../lib/shared/pins';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { parse } from 'yaml';

const VALUES = 'k8s/generated/bootstrap/02-cilium/values.yaml';

/** The reference homelab with the `cilium` Application's first source changed. */
function withCiliumSource(change: Record<string, unknown>, app: Record<string, unknown> = {}): HomelabConfig {
  const cilium = DEFAULT_ARGOCD.applications.cilium;
  return {
    ...REFERENCE_HOMELAB,
    argocd: {
      ...DEFAULT_ARGOCD,
      applications: { ...DEFAULT_ARGOCD.applications, cilium: { ...cilium, ...app, sources: [{ ...cilium.sources[0], ...change } as never] } },
    },
  };
}

function problems(config: HomelabConfig): string[] {
  try {
    synthesizeHomelab(config);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems.map((p) => `${p.path}: ${p.message}`);
    throw e;
  }
  return [];
}

describe('the cilium Application adopts the release Phase 0 installs with helm', () => {
  const synthesis = synthesizeHomelab(REFERENCE_HOMELAB);
  const tree = synthesis.tree;

  test('both render one release: same chart, repository, version, release name and namespace, from one values file', () => {
    // GIVEN the runbook's helm call and the Application
    const runbook = tree.get('bootstrap/bootstrap.sh') as string;
    const app = parse(tree.get('argocd/apps/cilium.yaml') as string);
    const chart = app.spec.sources[0];

    // THEN
    expect(runbook).toContain('helm_release cilium cilium cilium https://helm.cilium.io 1.20.0 kube-system 0 02-cilium/values.yaml 600');
    expect(chart).toMatchObject({ chart: 'cilium', repoURL: PHASE0_CHARTS.cilium.repoURL, targetRevision: PHASE0_CHARTS.cilium.version });
    expect(chart.helm).toEqual({ releaseName: 'cilium', valueFiles: [`$values/${VALUES}`] });
    expect(app.spec.destination.namespace).toBe('kube-system');
    // the file the Application reads is the one the runbook passes to helm, under git.distPath
    expect(tree.has('bootstrap/02-cilium/values.yaml')).toBe(true);
  });

  test('a sync keeps the TLS material the release generated: the ignored fields are respected during the sync too', () => {
    const app = parse(tree.get('argocd/apps/cilium.yaml') as string);
    expect(app.spec.syncPolicy.syncOptions).toContain('RespectIgnoreDifferences=true');
    expect(app.spec.ignoreDifferences.map((d: { name: string }) => d.name)).toEqual(['cilium-ca', 'hubble-server-certs', 'hubble-relay-client-certs']);
  });

  test('the values are the Talos settings, typed', () => {
    const values = parse(tree.get('bootstrap/02-cilium/values.yaml') as string);
    expect(values).toMatchObject({
      ipam: { mode: 'kubernetes' }, kubeProxyReplacement: true, k8sServiceHost: 'localhost', k8sServicePort: 7445,
      cgroup: { autoMount: { enabled: false }, hostRoot: '/sys/fs/cgroup' },
    });
    expect(values.securityContext.capabilities.ciliumAgent).not.toContain('SYS_MODULE');
  });

  test('the values file follows git.distPath and the config', () => {
    const other = synthesizeHomelab({ ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, distPath: 'gen' }, cilium: { k8sServicePort: 6443 } });
    const app = parse(other.tree.get('argocd/apps/cilium.yaml') as string);
    expect(app.spec.sources[0].helm.valueFiles).toEqual(['$values/gen/bootstrap/02-cilium/values.yaml']);
    expect(parse(other.tree.get('bootstrap/02-cilium/values.yaml') as string).k8sServicePort).toBe(6443);
  });

  test('Longhorn is installed by the runbook and adopted by no Application (ADR 0001)', () => {
    expect([...synthesis.argocd.applications.values()].some((a) => a.sources.some((s) => s.kind === 'helm-chart' && s.chart === 'longhorn'))).toBe(false);
    expect(tree.get('bootstrap/bootstrap.sh')).toContain('helm_release longhorn longhorn longhorn https://charts.longhorn.io 1.12.1 longhorn-system 0 03-longhorn/values.yaml 600');
  });

  test('fails when the adopting Application disagrees on version, repository, release name and namespace', () => {
    const found = problems(withCiliumSource({ version: '1.19.3', repoURL: 'https://mirror.example/cilium', releaseName: 'cni' }, { namespace: 'cilium' }));
    expect(found).toEqual([
      expect.stringMatching(/^argocd\.applications\.cilium\.sources\[0\]\.repoURL: .*renders repoURL 'https:\/\/mirror\.example\/cilium'.*Set it to 'https:\/\/helm\.cilium\.io'/),
      expect.stringMatching(/^argocd\.applications\.cilium\.sources\[0\]\.version: .*renders version '1\.19\.3', while Phase 0 installs cilium with helm \(release kube-system\/cilium, chart 'cilium' 1\.20\.0 from https:\/\/helm\.cilium\.io\).*Set it to '1\.20\.0'/),
      expect.stringMatching(/^argocd\.applications\.cilium\.sources\[0\]\.releaseName: .*renders releaseName 'cni'.*Set it to 'cilium'/),
      expect.stringMatching(/^argocd\.applications\.cilium\.namespace: application 'cilium' adopts cilium \(cilium\.adoptedBy\) but deploys to namespace 'cilium'.*set namespace: 'kube-system'\.$/),
    ]);
  });

  test('fails when the adopting Application lists values files of its own', () => {
    expect(problems(withCiliumSource({ valueFiles: ['k8s/bootstrap/cilium/values.yaml'] }))).toEqual([
      expect.stringMatching(new RegExp('^argocd\\.applications\\.cilium\\.sources\\[0\\]\\.valueFiles: .*reads values \'k8s/bootstrap/cilium/values\\.yaml\', ' +
        `while Phase 0 installed it with '${VALUES.replace(/\./g, '\\.')}'.*Remove valueFiles`)),
    ]);
  });

  test('fails when the adopting Application ignores fields in its diff but not in its sync', () => {
    expect(problems(withCiliumSource({}, { syncOptions: [] }))).toEqual([
      'argocd.applications.cilium.syncOptions: application \'cilium\' adopts cilium (cilium.adoptedBy) and ignores 3 field(s) in its diff ' +
        '(ignoreDifferences), but a sync would still apply them, replacing what the release Phase 0 installed uses. Add ' +
        '\'RespectIgnoreDifferences\' to syncOptions, so a sync keeps their live values.',
    ]);
  });

  test('fails when cilium.adoptedBy names no Application', () => {
    expect(problems({ ...REFERENCE_HOMELAB, cilium: { adoptedBy: 'cni' } })).toContainEqual(
      expect.stringMatching(/^cilium\.adoptedBy: 'cni' names no Application under argocd\.applications\..*set cilium\.adoptedBy: null/));
  });

  test('adoptedBy: null leaves the release to the runbook; the cilium Application is then a second owner', () => {
    expect(problems({ ...REFERENCE_HOMELAB, cilium: { adoptedBy: null } })).toEqual([
      expect.stringMatching(/^argocd\.applications\.cilium\.sources\[0\]: application 'cilium' deploys the Phase-0 component 'cilium'/),
    ]);
  });
});

import {
  imageRepository, imageSignature, matchSignature, normalizeRepo, Phase0Signature, PHASE0_SIGNATURES, signaturePath,
} from '../../lib/config/phase0-signatures';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { CHART_PINS, DEFAULT_ARGOCD } from '../../lib/config/default-catalog';
import { parseHomelabConfig } from '../../lib/config/parse';
import { ConfigError } from '../../lib/shared/errors';

const signature = (component: string): Phase0Signature => PHASE0_SIGNATURES.find((s) => s.component === component)!;
const chart = (repoURL: string, name: string) => ({ kind: 'helm-chart' as const, repoURL, chart: name });
const git = (path: string, recurse?: boolean) => ({ kind: 'git-path' as const, path, recurse });

describe('the Phase-0 signature table', () => {
  test('names every Phase-0 component once, with a role for messages', () => {
    const names = PHASE0_SIGNATURES.map((s) => s.component);
    expect(names).toEqual(['forgejo', 'cnpg-operator', 'longhorn', 'cilium', 'bootstrap', 'argocd']);
    for (const s of PHASE0_SIGNATURES) expect(s.role.length).toBeGreaterThan(10);
  });

  test('the bootstrap tree comes before the root app, so a recursive parent is reported as the bootstrap tree', () => {
    const matched = PHASE0_SIGNATURES.filter((s) => matchSignature(git('k8s', true), s, 'k8s/generated'));
    expect(matched.map((s) => s.component)).toEqual(['bootstrap', 'argocd']);
  });
});

describe('matchSignature: charts', () => {
  test.each([
    ['oci://code.forgejo.org/forgejo-helm', 'forgejo', 'forgejo'],
    ['oci://code.forgejo.org/forgejo-helm/', 'forgejo', 'forgejo'],
    ['oci://code.forgejo.org/forgejo-helm/forgejo', 'forgejo', 'forgejo'],
    ['code.forgejo.org/forgejo-helm', 'forgejo', 'forgejo'],
    ['oci://codeberg.org/forgejo-contrib', 'forgejo', 'forgejo'],
    ['https://cloudnative-pg.github.io/charts', 'cloudnative-pg', 'cnpg-operator'],
    ['oci://ghcr.io/cloudnative-pg/charts', 'cloudnative-pg', 'cnpg-operator'],
    ['https://charts.longhorn.io/', 'Longhorn', 'longhorn'],
    ['oci://ghcr.io/argoproj/argo-helm', 'argo-cd', 'argocd'],
  ])('%s chart %s is %s', (repoURL, name, component) => {
    expect(matchSignature(chart(repoURL, name), signature(component), 'k8s/generated')?.what).toBe(`chart '${name}' from '${repoURL}'`);
  });

  test.each([
    ['oci://ghcr.io/cloudnative-pg/charts', 'cluster'],
    ['https://cloudnative-pg.github.io/charts', 'plugin-barman-cloud'],
    ['oci://code.forgejo.org/forgejo-helm', 'forgejo-runner'],
    ['oci://codeberg.org/wrenix/helm-charts', 'forgejo-runner'],
    ['https://argoproj.github.io/argo-helm', 'argocd-apps'],
    // A mirror is recognised only once the config declares it in phase0Signatures.
    ['oci://registry.home.arpa/mirror', 'forgejo'],
  ])('%s chart %s is no Phase-0 component', (repoURL, name) => {
    expect(PHASE0_SIGNATURES.filter((s) => matchSignature(chart(repoURL, name), s, 'k8s/generated'))).toEqual([]);
  });
});

describe('matchSignature: paths', () => {
  const bootstrap = signature('bootstrap');

  test.each([
    [git('k8s/generated/bootstrap'), "path 'k8s/generated/bootstrap'"],
    [git('k8s/generated/bootstrap/05-argocd-install'), "path 'k8s/generated/bootstrap/05-argocd-install' (inside 'k8s/generated/bootstrap')"],
    [git('k8s/generated', true), "path 'k8s/generated' with recurse: true (which reads 'k8s/generated/bootstrap')"],
    [git('.', true), "path '.' with recurse: true (which reads 'k8s/generated/bootstrap')"],
    [{ kind: 'plugin' as const, path: 'k8s/generated/bootstrap' }, "path 'k8s/generated/bootstrap'"],
  ])('%j reads the bootstrap tree', (source, what) => {
    expect(matchSignature(source, bootstrap, 'k8s/generated')?.what).toBe(what);
  });

  test.each([
    git('k8s/generated'),
    git('.'),
    git('k8s/generated-extra', true),
    git('k8s/bootstrap', true),
    git('k8s/generated/data-schemas', true),
    // A plugin decides what it reads; the generated sops-secrets Application runs one at the root.
    { kind: 'plugin' as const, path: '.' },
  ])('%j does not', (source) => {
    expect(matchSignature(source, bootstrap, 'k8s/generated')).toBeUndefined();
  });

  test('follows git.distPath, the repository root included', () => {
    expect(signaturePath('{distPath}/bootstrap', 'deploy')).toBe('deploy/bootstrap');
    expect(signaturePath('{distPath}/bootstrap', '.')).toBe('bootstrap');
    expect(matchSignature(git('bootstrap'), bootstrap, '.')?.what).toBe("path 'bootstrap'");
    expect(matchSignature(git('k8s/generated/bootstrap'), bootstrap, 'deploy')).toBeUndefined();
  });
});

describe('repositories and images', () => {
  test('a repository compares without scheme, trailing slashes or case', () => {
    expect(normalizeRepo('OCI://GHCR.io/CloudNative-PG/charts//')).toBe('ghcr.io/cloudnative-pg/charts');
    expect(normalizeRepo('https://charts.longhorn.io')).toBe('charts.longhorn.io');
  });

  test('an image compares by repository, without tag or digest', () => {
    expect(imageRepository('registry.local:5000/forgejo/forgejo:16.0.3-rootless@sha256:abc')).toBe('registry.local:5000/forgejo/forgejo');
    expect(imageSignature('codeberg.org/forgejo/forgejo:16.0.3-rootless', PHASE0_SIGNATURES)?.component).toBe('forgejo');
    expect(imageSignature('ghcr.io/cloudnative-pg/cloudnative-pg:1.30.0', PHASE0_SIGNATURES)?.component).toBe('cnpg-operator');
    expect(imageSignature('ghcr.io/cloudnative-pg/postgresql:18.4-system-trixie', PHASE0_SIGNATURES)).toBeUndefined();
    expect(imageSignature('code.forgejo.org/forgejo/runner:11', PHASE0_SIGNATURES)).toBeUndefined();
  });
});

describe('the Phase-0 guards and the designated adopter', () => {
  const messages = (config: unknown): string[] => {
    try {
      parseHomelabConfig(config);
    } catch (e) {
      if (e instanceof ConfigError) return e.problems.map((p) => `${p.path}: ${p.message}`);
      throw e;
    }
    return [];
  };

  test('the cilium Application, which cilium.adoptedBy designates, may carry the cilium chart', () => {
    expect(messages(REFERENCE_HOMELAB).filter((m) => m.includes('Phase-0 component'))).toEqual([]);
  });

  test('fails for another Application that would also install Cilium, naming the adopter', () => {
    const config = {
      ...REFERENCE_HOMELAB,
      argocd: {
        ...DEFAULT_ARGOCD,
        applications: {
          ...DEFAULT_ARGOCD.applications,
          'cni': { syncWave: 0, namespace: 'kube-system', sources: [{ kind: 'helm-chart', ...CHART_PINS.cilium, valueFiles: [] }] },
        },
      },
    };
    expect(messages(config)).toContainEqual(expect.stringMatching(/^argocd\.applications\.cni\.sources\[0\]: application 'cni' deploys the Phase-0 component 'cilium' under another name: its chart 'cilium' from 'https:\/\/helm\.cilium\.io'.* Remove this source; the bootstrap runbook installs 'cilium' and Application 'cilium' adopts it \(cilium\.adoptedBy\); to move the adoption here, set cilium\.adoptedBy: 'cni'\.$/));
  });

  test('fails for an Application reading the generated seed-apps tree', () => {
    expect(matchSignature(git('k8s/generated/argocd/seed-apps'), PHASE0_SIGNATURES.find((s) => s.component === 'argocd')!, 'k8s/generated'))
      .toMatchObject({ what: "path 'k8s/generated/argocd/seed-apps'" });
  });
});

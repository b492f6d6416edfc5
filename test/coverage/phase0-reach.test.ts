import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { PHASE0_SIGNATURES } from '../../lib/config/phase0-signatures';
import { phase0KustomizeProblems } from '../../lib/coverage/phase0-reach';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

// The reference tree once: the check reads only the Applications and the checkout.
const { argocd } = synthesizeHomelab(REFERENCE_HOMELAB);

describe('phase0KustomizeProblems', () => {
  let repo: string;
  const write = (file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), content);
  };
  beforeEach(() => { repo = fs.mkdtempSync(path.join(os.tmpdir(), 'phase0-reach-')); });
  afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

  test('reports a kustomization that lists the generated bootstrap tree', () => {
    // GIVEN duckdns's kustomization pulls in the Argo CD install of the bootstrap tree
    write('k8s/apps/duckdns/kustomization.yaml', 'resources:\n  - deployment.yaml\n  - ../../generated/bootstrap/05-argocd-install\n');
    // WHEN
    const problems = phase0KustomizeProblems(argocd, repo, PHASE0_SIGNATURES);
    // THEN
    expect(problems).toEqual([{
      path: 'argocd.applications.duckdns.sources[0].path',
      message: 'application \'duckdns\' deploys the Phase-0 component \'bootstrap\' through kustomize: k8s/apps/duckdns/kustomization.yaml ' +
        `(in ${repo}) lists 'k8s/generated/bootstrap/05-argocd-install', which holds 'k8s/generated/bootstrap' (it is the runbook's own ` +
        'input: namespaces, the CNPG operator, forgejo-db, Forgejo, the Argo CD install and the root app). Argo CD syncs from the git ' +
        'repository that Forgejo serves, and Forgejo needs CNPG and storage, so an Application that owns it re-creates the bootstrap ' +
        "circle. Remove 'k8s/generated/bootstrap/05-argocd-install' from k8s/apps/duckdns/kustomization.yaml.",
    }]);
  });

  test('follows kustomizations transitively, through bases and components too', () => {
    // GIVEN duckdns lists a shared base, whose kustomization lists the root app folder
    write('k8s/apps/duckdns/kustomization.yaml', 'bases:\n  - ../../shared/base\n');
    write('k8s/shared/base/kustomization.yaml', 'components:\n  - ../../generated/argocd/root\n');
    // WHEN
    const problems = phase0KustomizeProblems(argocd, repo, PHASE0_SIGNATURES);
    // THEN
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining(
      "'argocd' through kustomize: k8s/shared/base/kustomization.yaml (in " )]);
    expect(problems[0].message).toContain("lists 'k8s/generated/argocd/root'");
  });

  test('ordinary kustomizations, remote bases, parents and broken files are not reported', () => {
    // GIVEN
    write('k8s/apps/duckdns/kustomization.yaml', 'resources:\n  - deployment.yaml\n  - ../../generated\n  - https://github.com/x/y//k8s/generated/bootstrap\n');
    write('k8s/infra/cicd/kustomization.yaml', 'resources: [\n');
    write('k8s/infra/longhorn/kustomization.yml', 'resources:\n  - storageclass.yaml\n  - ../../bootstrap/longhorn\n');
    // WHEN / THEN
    expect(phase0KustomizeProblems(argocd, repo, PHASE0_SIGNATURES)).toEqual([]);
  });

  test('synthesis with git.repoRoot refuses the config', () => {
    // GIVEN every Application path of the reference catalog exists, and one kustomization lists the bootstrap tree
    const paths = new Set<string>();
    for (const app of Object.values(REFERENCE_HOMELAB.argocd.applications)) {
      for (const s of app.sources) {
        if (s.kind === 'helm-chart') for (const f of s.valueFiles ?? []) write(f, '{}\n');
        else paths.add(s.path);
      }
    }
    // and every delivery app's overlay (delivery.apps.<name>.overlayPath, default k8s/apps/<name>)
    for (const name of Object.keys(REFERENCE_HOMELAB.delivery?.apps ?? {})) paths.add(`k8s/apps/${name}`);
    for (const p of paths) fs.mkdirSync(path.join(repo, p), { recursive: true });
    write('k8s/apps/duckdns/kustomization.yaml', 'resources:\n  - ../../generated/bootstrap\n');
    // WHEN / THEN
    expect(() => synthesizeHomelab({ ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, repoRoot: repo } }))
      .toThrow("argocd.applications.duckdns.sources[0].path: application 'duckdns' deploys the Phase-0 component 'bootstrap' through kustomize");
  });
});

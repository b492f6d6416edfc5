import { ManifestDocument } from '../../lib/validation/manifest-documents';
import { repoCredentialProblems } from '../../lib/validation/repo-credential-rules';

const GITHUB = 'git@github.com:o/r.git';
const FORGEJO = 'http://forgejo-http.cicd.svc.cluster.local:3000/o/r.git';

const root = (file: string, url: string): ManifestDocument => ({
  file, index: 0, role: 'object', inKustomization: false,
  value: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'root', namespace: 'argocd' }, spec: { source: { repoURL: url } } },
});
const credential = (file: string, url: string): ManifestDocument => ({
  file, index: 0, role: 'kustomization', inKustomization: true,
  value: { secretGenerator: [{ name: 'homelab-repo', literals: ['type=git', `url=${url}`], options: { labels: { 'argocd.argoproj.io/secret-type': 'repository' } } }] },
});

describe('repoCredentialProblems', () => {
  test('a credential for the committed root app\'s URL, or for the bootstrap\'s seed copy of the root app, is fine', () => {
    expect(repoCredentialProblems([
      root('argocd/root/root.yaml', FORGEJO),
      root('bootstrap/07-argocd-seed-root.yaml', GITHUB),
      credential('bootstrap/06-argocd-seed-credential/kustomization.yaml', GITHUB),
      credential('bootstrap/08-argocd-repo-credential/kustomization.yaml', FORGEJO),
    ])).toEqual([]);
  });

  test('fails on a credential for a URL no root app reads', () => {
    const problems = repoCredentialProblems([
      root('argocd/root/root.yaml', FORGEJO),
      credential('bootstrap/06-argocd-repo-credential/kustomization.yaml', GITHUB),
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      `repository credential url '${GITHUB}' is not the root app's repoURL '${FORGEJO}' (argocd/root/root.yaml); ` +
        'Argo CD matches credentials by exact URL, so the root app could not read the repository. Derive both from git.source.',
    ]);
  });
});

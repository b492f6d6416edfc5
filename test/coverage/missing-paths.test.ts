import * as path from 'path';
import { missingApplicationPaths } from '../../lib/coverage/missing-paths';
import { referenceCheckout, synthesized, TempCheckouts } from './fixture';

const checkouts = new TempCheckouts();
afterEach(() => checkouts.cleanup());

/** The reference checkout without dist/ (synth writes it) and without the paths in `drop`. */
function checkout(...drop: string[]): string {
  const files = Object.entries(referenceCheckout())
    .filter(([p]) => !p.startsWith('k8s/generated/') && !drop.some((d) => p === d || p.startsWith(`${d}/`)));
  return checkouts.write(Object.fromEntries(files));
}

test('no problems when every path outside git.distPath exists, even before dist/ is committed', () => {
  expect(missingApplicationPaths(synthesized().argocd, checkout())).toEqual([]);
});

test('a missing source path and a missing values file are config problems at their config paths', () => {
  // GIVEN a checkout without duckdns and without prometheus's values
  const root = checkout('k8s/apps/duckdns', 'k8s/infra/monitoring/prometheus-values.yaml');
  // WHEN
  const problems = missingApplicationPaths(synthesized().argocd, root);
  // THEN
  expect(problems).toEqual([
    {
      path: 'argocd.applications.duckdns.sources[0].path',
      message: `application 'duckdns' reads 'k8s/apps/duckdns' in ${root}, which does not exist; Argo CD would fail with `
        + '"app path does not exist". Create the directory, or point the source at an existing one.',
    },
    {
      path: 'argocd.applications.prometheus.sources[0].valueFiles[0]',
      message: `application 'prometheus' reads the values file 'k8s/infra/monitoring/prometheus-values.yaml' in ${root} `
        + 'through $values, which does not exist; the sync would fail. Add the file, or point valueFiles at an existing one.',
    },
  ]);
});

test('a source path that is a file', () => {
  const files = Object.entries(referenceCheckout()).filter(([p]) => !p.startsWith('k8s/apps/duckdns/'));
  const root = checkouts.write({ ...Object.fromEntries(files), 'k8s/apps/duckdns': 'oops\n' });
  expect(missingApplicationPaths(synthesized().argocd, root)).toEqual([{
    path: 'argocd.applications.duckdns.sources[0].path',
    message: `application 'duckdns' reads 'k8s/apps/duckdns' in ${root}, which is a file, not a directory; Argo CD would fail with `
      + '"app path does not exist". Create the directory, or point the source at an existing one.',
  }]);
});

test('a repo root that is not a directory is one problem at git.repoRoot', () => {
  const missing = path.join(checkout(), 'nope');
  expect(missingApplicationPaths(synthesized().argocd, missing)).toEqual([{
    path: 'git.repoRoot',
    message: `'${missing}' is not a directory. Set git.repoRoot to a local checkout of the homelab repository, or remove it.`,
  }]);
});

import { HomelabRepo, repoPathProblem } from '../../../lib/constructs/argocd/homelab-repo';
import { SEED_URL } from './util';

test('paths are computed from distPath', () => {
  expect(new HomelabRepo({ url: SEED_URL, targetRevision: 'v1', distPath: 'deploy/dist' }).distFile('values/temporal.yaml'))
    .toBe('deploy/dist/values/temporal.yaml');
  expect(new HomelabRepo({ url: SEED_URL, targetRevision: 'v1', distPath: '.' }).distFile('argocd/apps')).toBe('argocd/apps');
});

test('throws on a distPath that is not repo-relative', () => {
  expect(() => new HomelabRepo({ url: SEED_URL, targetRevision: 'main', distPath: '/k8s/generated' })).toThrow(new Error(
    'HomelabRepo: \'distPath\' (\'/k8s/generated\') must be relative to the repository root, without a leading \'/\'; ' +
    'it is the folder of the repository where dist/ is committed, e.g. \'k8s/generated\'.'));
});

test.each([
  ['', 'must not be empty (use \'.\' for the repository root)'],
  ['/abs', 'must be relative to the repository root, without a leading \'/\''],
  ['a/../b', 'must be normalized (no \'./\', \'//\' or trailing \'/\')'],
  ['../b', 'must not contain \'..\''],
  ['a//b', 'must be normalized (no \'./\', \'//\' or trailing \'/\')'],
])('repo path %p: %s', (p, problem) => {
  expect(repoPathProblem(p)).toBe(problem);
});

test.each(['.', 'k8s/infra/longhorn', 'k8s/apps/homarr/values.yaml'])('repo path %p is fine', (p) => {
  expect(repoPathProblem(p)).toBeUndefined();
});

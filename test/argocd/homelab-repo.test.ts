import { HomelabRepo, repoPathProblem } from '../../lib/argocd/homelab-repo';
import { config, FORGEJO, SEED_URL } from './util';

test('defaults: revision main, dist in k8s/generated', () => {
  const repo = HomelabRepo.fromConfig(config({ git: { githubSeedUrl: SEED_URL } }), FORGEJO);
  expect(repo.url).toBe(SEED_URL);
  expect(repo.targetRevision).toBe('main');
  expect(repo.distPath).toBe('k8s/generated');
  expect(repo.distFile('argocd/apps')).toBe('k8s/generated/argocd/apps');
});

test('paths are computed from distPath', () => {
  expect(new HomelabRepo({ url: SEED_URL, targetRevision: 'v1', distPath: 'deploy/dist' }).distFile('values/temporal.yaml'))
    .toBe('deploy/dist/values/temporal.yaml');
  expect(new HomelabRepo({ url: SEED_URL, targetRevision: 'v1', distPath: '.' }).distFile('argocd/apps')).toBe('argocd/apps');
});

test('throws on a distPath that is not repo-relative', () => {
  expect(() => new HomelabRepo({ url: SEED_URL, targetRevision: 'main', distPath: '/k8s/generated' })).toThrow(new Error(
    'git.distPath \'/k8s/generated\' must be relative to the repository root, without a leading \'/\'. ' +
    'Set git.distPath to the folder of the homelab repository where dist/ is committed, e.g. \'k8s/generated\'.'));
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

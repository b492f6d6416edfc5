import { githubHttpsUrl, parseGithubSeed } from '../../lib/shared/git-urls';
import { forgejoRepoUrl, homelabRepoFor, repoUrlFor } from '../../lib/homelab/repo-url';
import { config, FORGEJO, FORGEJO_REPO_URL, SEED_URL } from '../constructs/argocd/util';

describe('parseGithubSeed', () => {
  test.each([
    ['git@github.com:owner/homelab.git', 'owner', 'homelab'],
    ['git@github.com:owner/homelab', 'owner', 'homelab'],
    ['ssh://git@github.com/owner/homelab.git', 'owner', 'homelab'],
    ['https://github.com/owner/homelab.git', 'owner', 'homelab'],
  ])('%s -> %s/%s', (url, owner, repo) => {
    expect(parseGithubSeed(url)).toEqual({ url, owner, repo });
  });

  test('throws on a URL that is not a GitHub repository', () => {
    expect(() => parseGithubSeed('git@gitlab.com:owner/homelab.git')).toThrow(new Error(
      '\'git@gitlab.com:owner/homelab.git\' is not a GitHub repository URL. ' +
      'Use the SSH form \'git@github.com:<owner>/<repo>.git\' (the one the read-only deploy key authenticates).'));
  });

  test('the https form is what Forgejo clones', () => {
    expect(githubHttpsUrl(parseGithubSeed('git@github.com:owner/homelab.git'))).toBe('https://github.com/owner/homelab.git');
  });
});

describe('repoUrlFor', () => {
  test('is the GitHub seed while git.source is github (the default)', () => {
    expect(repoUrlFor(config(), FORGEJO)).toBe(SEED_URL);
    expect(repoUrlFor(config({ git: { githubSeedUrl: SEED_URL } }), FORGEJO)).toBe(SEED_URL);
  });

  test('is Forgejo\'s in-cluster URL, owner and repo from the seed, after the cutover', () => {
    const cfg = config({ git: { ...config().git, source: 'forgejo' } });
    expect(repoUrlFor(cfg, FORGEJO)).toBe(FORGEJO_REPO_URL);
    expect(repoUrlFor(cfg, { inClusterHttpUrl: 'http://forgejo-http.cicd.svc.cluster.local:3000/' })).toBe(FORGEJO_REPO_URL);
  });

  test('uses forgejo.repoOwner when set', () => {
    const cfg = config({ git: { ...config().git, source: 'forgejo' }, forgejo: { ...config().forgejo, repoOwner: 'platform' } });
    expect(repoUrlFor(cfg, FORGEJO)).toBe('http://forgejo-http.cicd.svc.cluster.local:3000/platform/homelab.git');
  });

  test('throws on a Forgejo endpoint that is not a base URL', () => {
    expect(() => forgejoRepoUrl(config(), { inClusterHttpUrl: 'forgejo-http:3000' })).toThrow(new Error(
      'Forgejo endpoint \'forgejo-http:3000\' is not an http(s) base URL without a path. ' +
      'Pass the in-cluster URL of the Forgejo HTTP Service, e.g. \'http://forgejo-http.cicd.svc.cluster.local:3000\'.'));
  });
});

test('homelabRepoFor: the config\'s defaults are revision main, dist in k8s/generated', () => {
  const repo = homelabRepoFor(config({ git: { githubSeedUrl: SEED_URL } }), FORGEJO);
  expect(repo.url).toBe(SEED_URL);
  expect(repo.targetRevision).toBe('main');
  expect(repo.distPath).toBe('k8s/generated');
  expect(repo.distFile('argocd/apps')).toBe('k8s/generated/argocd/apps');
});

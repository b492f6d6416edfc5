import type { ResolvedHomelabConfig } from '../config/homelab-config';
import { HomelabRepo } from '../constructs/argocd/homelab-repo';
import { ForgejoEndpoint, parseGithubSeed } from '../shared/git-urls';

/** Owner of the homelab repository in Forgejo: `forgejo.repoOwner`, else the GitHub owner. */
export function forgejoRepoOwner(config: ResolvedHomelabConfig): string {
  return config.forgejo.repoOwner ?? parseGithubSeed(config.git.githubSeedUrl).owner;
}

/** The in-cluster HTTP clone URL of the homelab repository in Forgejo. */
export function forgejoRepoUrl(config: ResolvedHomelabConfig, forgejo: Pick<ForgejoEndpoint, 'inClusterHttpUrl'>): string {
  const base = forgejo.inClusterHttpUrl.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+$/.test(base)) {
    throw new Error(`Forgejo endpoint '${forgejo.inClusterHttpUrl}' is not an http(s) base URL without a path. ` +
      'Pass the in-cluster URL of the Forgejo HTTP Service, e.g. \'http://forgejo-http.cicd.svc.cluster.local:3000\'.');
  }
  const seed = parseGithubSeed(config.git.githubSeedUrl);
  return `${base}/${forgejoRepoOwner(config)}/${seed.repo}.git`;
}

/**
 * The URL Argo CD reads the homelab repository from: the GitHub seed before the Phase-2 cutover, Forgejo's
 * in-cluster URL after it (`git.source`). The root app, every Application, the project's `sourceRepos` and
 * the bootstrap's repository credential all use this one function, so the cutover flips them together.
 */
export function repoUrlFor(config: ResolvedHomelabConfig, forgejo: Pick<ForgejoEndpoint, 'inClusterHttpUrl'>): string {
  return config.git.source === 'forgejo' ? forgejoRepoUrl(config, forgejo) : parseGithubSeed(config.git.githubSeedUrl).url;
}

/** The homelab repository as the config declares it, with the URL in use and both remotes (GitHub seed, Forgejo). */
export function homelabRepoFor(config: ResolvedHomelabConfig, forgejo: Pick<ForgejoEndpoint, 'inClusterHttpUrl'>): HomelabRepo {
  const at = (source: 'github' | 'forgejo') => repoUrlFor({ ...config, git: { ...config.git, source } }, forgejo);
  return new HomelabRepo({
    url: repoUrlFor(config, forgejo),
    remotes: [at('github'), at('forgejo')],
    targetRevision: config.git.targetRevision,
    distPath: config.git.distPath,
  });
}

/** Git URLs of the homelab repository: the GitHub seed and Forgejo's in-cluster endpoint. Pure functions. */
import { PodPeer } from './network';

/**
 * The in-cluster HTTP endpoint of Forgejo. The bootstrap's Forgejo construct implements it from its Service
 * (name, namespace, port), so the URL is derived, never typed as a string in the config.
 */
export interface ForgejoEndpoint {
  /** Base URL reachable from inside the cluster, e.g. `http://forgejo-http.cicd.svc.cluster.local:3000`. */
  readonly inClusterHttpUrl: string;
  /** Forgejo's pods, for the network policies of whoever calls it. */
  readonly peer: PodPeer;
  /** The port Forgejo's pods serve HTTP on (the Service's target port). */
  readonly httpPort: number;
}

/** Owner and name of the homelab repository on GitHub, parsed from the seed URL. */
export interface GithubSeed {
  /** The seed URL exactly as configured; Argo CD reads this one while `git.source` is `github`. */
  readonly url: string;
  readonly owner: string;
  readonly repo: string;
}

const SEED_FORMS = [
  /^git@github\.com:([^/\s]+)\/([^/\s]+?)(\.git)?$/,
  /^ssh:\/\/git@github\.com\/([^/\s]+)\/([^/\s]+?)(\.git)?$/,
  /^https:\/\/github\.com\/([^/\s]+)\/([^/\s]+?)(\.git)?$/,
];

/** Parses `git@github.com:owner/homelab.git` (or the `ssh://` and `https://` forms) into owner and repo. */
export function parseGithubSeed(url: string): GithubSeed {
  for (const form of SEED_FORMS) {
    const m = form.exec(url);
    if (m) return { url, owner: m[1], repo: m[2] };
  }
  throw new Error(`'${url}' is not a GitHub repository URL. ` +
    'Use the SSH form \'git@github.com:<owner>/<repo>.git\' (the one the read-only deploy key authenticates).');
}

/** The HTTPS clone URL of the seed, as Forgejo's pull-mirror fetches it with a token. */
export function githubHttpsUrl(seed: GithubSeed): string {
  return `https://github.com/${seed.owner}/${seed.repo}.git`;
}

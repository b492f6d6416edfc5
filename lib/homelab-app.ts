import { App } from 'cdk8s';
import { HomelabConfig } from './config/homelab-config';
import { parseGithubSeedUrl, validateConfig } from './config/validate-config';
import { BootstrapPlan } from './bootstrap/bootstrap-plan';
import { planSteps, renderSteps } from './bootstrap/core';
import { renderRunbook } from './bootstrap/runbook';
import { ForgejoServer } from './bootstrap/forgejo';
import { MIN_KUBECTL_VERSION } from './shared/pins';
import { OutputTree, sortedTree } from './synth/output-tree';

/** The built program: the cdk8s app and the plan, for tests and tools that look inside. */
export interface HomelabSynthesis {
  readonly app: App;
  readonly bootstrap: BootstrapPlan;
  /** Every output file, keyed by its path relative to `dist/`, in sorted order. */
  readonly tree: OutputTree;
}

/** The URL Argo CD reads the homelab repository from. */
function repoUrl(config: HomelabConfig, forgejo: ForgejoServer): string {
  if ((config.git.source ?? 'github') === 'github') return config.git.githubSeedUrl;
  const { owner, repo } = parseGithubSeedUrl(config.git.githubSeedUrl);
  return `${forgejo.inClusterHttpUrl}/${config.forgejo.repoOwner ?? owner}/${repo}.git`;
}

/**
 * Validates the config, builds every chart and renders the whole output tree in memory. Throws a
 * `ConfigError` listing every problem before anything is built; nothing touches the disk.
 */
export function synthesizeHomelab(config: HomelabConfig): HomelabSynthesis {
  validateConfig(config).check();
  const app = new App({ outdir: '.cdk8s.out' });
  const bootstrap = new BootstrapPlan(app, 'Bootstrap', { config, repoUrl: (f) => repoUrl(config, f) });
  const planned = planSteps(bootstrap.steps);
  const tree: OutputTree = new Map([
    ...renderSteps(planned, 'bootstrap/'),
    ['bootstrap/bootstrap.sh', renderRunbook(planned, { minKubectlVersion: MIN_KUBECTL_VERSION })],
  ]);
  return { app, bootstrap, tree: sortedTree(tree) };
}

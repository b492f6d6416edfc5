import { Chart, Testing } from 'cdk8s';
import { ArgoCdChart, buildArgoCdTree } from '../../../lib/homelab/argocd-chart';
import { HomelabApplicationProps } from '../../../lib/constructs/argocd/homelab-application';
import { HomelabProject } from '../../../lib/constructs/argocd/homelab-project';
import { HomelabRepo } from '../../../lib/constructs/argocd/homelab-repo';
import { ForgejoEndpoint } from '../../../lib/shared/git-urls';
import { HomelabConfig, ResolvedHomelabConfig } from '../../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../../lib/config/parse';
import { REFERENCE_HOMELAB } from '../../../lib/config/defaults';

/** Forgejo's endpoint as the bootstrap's Forgejo construct would expose it. */
export const FORGEJO: ForgejoEndpoint = {
  inClusterHttpUrl: 'http://forgejo-http.cicd.svc.cluster.local:3000',
  peer: { kind: 'pods', name: 'cicd/forgejo', namespace: 'cicd', podSelector: { 'app.kubernetes.io/name': 'forgejo', 'app.kubernetes.io/instance': 'forgejo' } },
  httpPort: 3000,
};

/** The seed URL of the reference homelab. */
export const SEED_URL = REFERENCE_HOMELAB.git.githubSeedUrl;
/** The Forgejo URL of the reference homelab's repository after the cutover. */
export const FORGEJO_REPO_URL = 'http://forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/homelab.git';

/** A chart with a repo and project, for construct-level tests. */
export function makeProjectChart(): { chart: Chart; repo: HomelabRepo; project: HomelabProject } {
  const chart = Testing.chart();
  const repo = new HomelabRepo({ url: SEED_URL, targetRevision: 'main', distPath: 'k8s/generated' });
  const project = new HomelabProject(chart, 'Project', { repo });
  return { chart, repo, project };
}

/** Minimal Application props; tests override what they are about. */
export function appProps(
  base: { repo: HomelabRepo; project: HomelabProject },
  overrides: Partial<HomelabApplicationProps> = {},
): HomelabApplicationProps {
  return {
    name: 'demo',
    project: base.project,
    repo: base.repo,
    sources: [{ kind: 'git-path', path: 'k8s/apps/demo' }],
    namespace: 'demo',
    syncWave: 8,
    ...overrides,
  };
}

/**
 * The reference homelab with `patch` applied on top (shallow per top-level key), resolved by lib/config's schema
 * and rules (not the Argo CD rules: the constructs' own checks are what these tests are about).
 */
export function config(patch: Partial<HomelabConfig> = {}): ResolvedHomelabConfig {
  return parseHomelabConfig({ ...REFERENCE_HOMELAB, ...patch });
}

/** Builds the tree in a fresh test app. */
export function tree(cfg: HomelabConfig = REFERENCE_HOMELAB): ArgoCdChart {
  return buildArgoCdTree(Testing.app(), { config: parseHomelabConfig(cfg), forgejo: FORGEJO });
}

/** The JSON of an object by kind and name in a synthesized chart. */
export { find } from '../../util';

/**
 * What the image build (ADR 0001 Part B, `delivery.build`) needs outside Argo CD, for `npm run plan` and
 * `dist/README.md`: the runner namespace's Pod Security level and why, the Talos machine-config patches each node needs
 * first, and what an application repository adopts. Pure: reads the synthesized program only.
 */
import type { ResolvedHomelabConfig } from '../config/homelab-config';
import type { ArgoCdChart } from '../homelab/argocd-chart';
import type { BootstrapPlan } from '../homelab/bootstrap-plan';
import { BUILD_FILES, registryNodeEndpoint, registryPullHost, RUNNER_APPLICATION, RUNNER_POD_SECURITY } from '../homelab/delivery/build';
import { MAX_USER_NAMESPACES } from '../constructs/delivery/talos-patches';

/** The build's preconditions, each a sentence. */
export interface PlannedBuildPreconditions {
  /** The runner namespace's Pod Security level and why. */
  readonly podSecurity: string;
  /** The Talos patches, in the order to apply them. */
  readonly talos: readonly string[];
  /** What an application repository does to build with the runner. */
  readonly adoption: string;
}

/** The preconditions of `delivery.build`; undefined when the config has no `delivery` (nothing is built). */
export function planBuildPreconditions(config: ResolvedHomelabConfig, bootstrap: Pick<BootstrapPlan, 'forgejo'>,
  argocd: ArgoCdChart): PlannedBuildPreconditions | undefined {
  const delivery = config.delivery;
  const runner = argocd.applications.get(RUNNER_APPLICATION);
  if (!delivery || !runner) return undefined;
  const build = delivery.build;
  const file = (f: string) => argocd.repo.distFile(f);
  const ctx = { delivery, forgejo: bootstrap.forgejo };
  return {
    podSecurity: `Namespace ${build.namespace} (Application ${runner.name}, wave ${runner.syncWave}) enforces Pod Security ` +
      `'${RUNNER_POD_SECURITY.enforce}', warn and audit '${RUNNER_POD_SECURITY.warn}': rootless BuildKit needs Unconfined seccomp and ` +
      'AppArmor (unshare and mount), which baseline refuses. No container there is privileged, mounts the host or is pinned to a node.',
    talos: [
      `Before wave ${runner.syncWave}, on every node: talosctl patch machineconfig --patch @${file(BUILD_FILES.userNamespaces)} ` +
        `(user.max_user_namespaces=${MAX_USER_NAMESPACES}; Talos sets 0, and rootless BuildKit crash-loops without user namespaces).`,
      `Before an app-tier pod pulls ${registryPullHost(ctx)}, on every node: talosctl patch machineconfig --patch ` +
        `@${file(BUILD_FILES.registryMirror)} (nodes resolve with their own DNS; the mirror sends those pulls to ${registryNodeEndpoint(ctx)}).`,
    ],
    adoption: `Application repositories copy ${file(BUILD_FILES.workflow)} to .forgejo/workflows/ and set the Forgejo Actions secrets ` +
      `${build.registryUsernameSecret}, ${build.registryTokenSecret}, ${build.cosignKeySecret} and ${build.cosignPasswordSecret}; jobs run on ` +
      `'${build.runnerLabel}', push to ${delivery.registry.pushHost} by digest and sign it. No workflow edits a manifest.`,
  };
}

/** The preconditions as plain lines (a sentence each), in the order the renderers show them. */
export function buildPreconditionLines(p: PlannedBuildPreconditions): string[] {
  return [p.podSecurity, ...p.talos, p.adoption];
}

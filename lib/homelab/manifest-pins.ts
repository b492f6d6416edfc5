import type { ResolvedHomelabConfig } from '../config/homelab-config';
import { BootstrapStep } from '../constructs/bootstrap/bootstrap-step';
import { ConfigProblem } from '../shared/errors';
import { UNPINNED } from '../shared/manifest-integrity';
import { ARGOCD_INSTALL_URL, BARMAN_CLOUD_PLUGIN_MANIFEST_URL, CNPG_MANIFEST_URL } from '../shared/pins';

/**
 * The release manifests of the pinned versions that a bootstrap step may apply by URL. A pin for one of them is never
 * stale, even while its component is off (the Barman Cloud plugin without any backup): turning it on needs no new pin.
 */
const PINNED_RELEASE_MANIFESTS: readonly string[] = [CNPG_MANIFEST_URL, BARMAN_CLOUD_PLUGIN_MANIFEST_URL, ARGOCD_INSTALL_URL];

/**
 * What is wrong with `manifestSha256` against the release manifests the steps really apply: a URL a step applies
 * without an entry (a pin bump moved it, e.g. a Renovate PR for the next CNPG release), and an entry for a URL that
 * neither a step applies nor is the release manifest of a pinned version (a stale pin, left behind by such a bump).
 * Checked at synth, so the runbook never meets a URL it has no pin for. Sorted by URL.
 */
export function manifestPinProblems(config: Pick<ResolvedHomelabConfig, 'manifestSha256'>, steps: readonly BootstrapStep[]): ConfigProblem[] {
  const applied = new Map<string, string>();
  for (const step of steps) {
    for (const url of step.kustomization?.remoteResources ?? []) applied.set(url, step.stepName);
  }
  const pinned = config.manifestSha256;
  const problems: ConfigProblem[] = [];
  for (const url of [...new Set([...applied.keys(), ...Object.keys(pinned)])].sort()) {
    const stepName = applied.get(url);
    if (stepName !== undefined && !(url in pinned)) {
      problems.push({
        path: `manifestSha256.${url}`,
        message: `bootstrap step '${stepName}' applies ${url}, which has no sha256 pin. Add '${url}': '<sha256>' with the ` +
          `64 hex digits \`curl -fsSL ${url} | sha256sum\` prints (check them against the release's own checksum or signature), ` +
          `or '${UNPINNED}' to have the runbook print them on its first run.`,
      });
    }
    if (stepName === undefined && !PINNED_RELEASE_MANIFESTS.includes(url)) {
      problems.push({
        path: `manifestSha256.${url}`,
        message: `no bootstrap step applies ${url}, and it is not the release manifest of a pinned version (a stale pin: ` +
          `the pinned release moved). Remove the entry${applied.size > 0 ? `; the steps apply ${[...applied.keys()].sort().join(', ')}` : ''}.`,
      });
    }
  }
  return problems;
}

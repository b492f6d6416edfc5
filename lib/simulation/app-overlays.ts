/**
 * The app directories of the homelab repository that `delivery.apps` adopt, for the simulation to read. An app's
 * Argo CD Application reads its own directory (`overlayPath`, outside the generated tree) so that Argo CD Image
 * Updater can write `.argocd-source-<app>.yaml` there; the directory holds a kustomization the user creates once,
 * whose only resource is the app's generated folder (lib/shared/delivery-layout.ts `appDistFolder`). The simulation
 * needs that file to map the Application to the generated Rollout, Services and AnalysisTemplates.
 */
import { OutputTree } from '../output/output-tree';
import { appDistFolder } from '../shared/delivery-layout';
import { distPrefixOf } from './bring-up';

/** An app of `delivery.apps`: its name and its own directory in the repository. */
export interface AdoptedApp {
  readonly name: string;
  /** Repository-relative, e.g. `k8s/apps/hello`. */
  readonly overlayPath: string;
}

/**
 * The user-owned kustomization of each app's directory, by repository-relative path, as `SimulationInput.repoFiles`
 * takes them: `resources: [<relative path to the generated folder>]`, e.g. `../../generated/apps/hello` from
 * `k8s/apps/hello` when the generated tree is `k8s/generated/`.
 */
export function appOverlayFiles(tree: OutputTree, apps: readonly AdoptedApp[]): Map<string, string> {
  const generated = `${distPrefixOf(tree)}${appDistFolder('')}`.replace(/\/+$/, '');
  const files = new Map<string, string>();
  for (const app of apps) {
    const dir = app.overlayPath.replace(/^\.\//, '').replace(/\/+$/, '');
    const target = `${generated}/${app.name}`;
    files.set(`${dir}/kustomization.yaml`, `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ${relative(dir, target)}\n`);
  }
  return files;
}

/** The relative path from directory `dir` to `target`, both repository-relative. */
function relative(dir: string, target: string): string {
  const from = dir.split('/');
  const to = target.split('/');
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  return `${'../'.repeat(from.length - common)}${to.slice(common).join('/')}`;
}

import * as fs from 'fs';
import * as path from 'path';
import type { ArgoCdChart } from '../homelab/argocd-chart';
import type { ConfigProblem } from '../shared/errors';
import { coverageModel, isInside } from './coverage-model';

/**
 * The paths the Applications of `argocd` read from the homelab repository (source paths and `$values` files)
 * that do not exist in the checkout at `repoRoot`, as config problems with the field to fix. Argo CD would
 * otherwise fail at sync time with "app path does not exist".
 *
 * Paths under `git.distPath` are skipped: this synthesis writes them, and they exist once its dist/ is
 * committed (`npm run coverage` checks them in a real checkout). Reads only the paths it checks.
 */
export function missingApplicationPaths(argocd: ArgoCdChart, repoRoot: string): ConfigProblem[] {
  const root = path.resolve(repoRoot);
  if (!isDirectory(root)) {
    return [{
      path: 'git.repoRoot',
      message: `'${repoRoot}' is not a directory. Set git.repoRoot to a local checkout of the homelab repository, or remove it.`,
    }];
  }
  const model = coverageModel(argocd);
  const ours = (p: string) => !isInside(p, model.distPath);
  const problems: ConfigProblem[] = [];
  for (const s of model.sources.filter((x) => ours(x.path))) {
    const abs = path.join(root, s.path);
    if (isDirectory(abs)) continue;
    const what = fs.existsSync(abs) ? 'is a file, not a directory' : 'does not exist';
    problems.push({
      path: s.configPath,
      message: `application '${s.application}' reads '${s.path}' in ${repoRoot}, which ${what}; Argo CD would fail with `
        + '"app path does not exist". Create the directory, or point the source at an existing one.',
    });
  }
  for (const v of model.valuesFiles.filter((x) => ours(x.path))) {
    const abs = path.join(root, v.path);
    if (fs.existsSync(abs) && fs.statSync(abs).isFile()) continue;
    const what = fs.existsSync(abs) ? 'is a directory, not a file' : 'does not exist';
    problems.push({
      path: v.configPath,
      message: `application '${v.application}' reads the values file '${v.path}' in ${repoRoot} through $values, which ${what}; `
        + 'the sync would fail. Add the file, or point valueFiles at an existing one.',
    });
  }
  return problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function isDirectory(p: string): boolean {
  return fs.existsSync(p) && fs.statSync(p).isDirectory();
}

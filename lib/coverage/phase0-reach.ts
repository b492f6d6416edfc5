import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import type { ArgoCdChart } from '../homelab/argocd-chart';
import type { ConfigProblem } from '../shared/errors';
import { Phase0Signature, signaturePath } from '../config/phase0-signatures';
import { coverageModel, isInside } from './coverage-model';
import { KUSTOMIZATION_FILES } from './repo-tree';

/**
 * Kustomizations in the checkout at `repoRoot` that pull a Phase-0 directory (the generated bootstrap tree, the
 * root app) into an Application: `resources`, `bases` and `components` entries followed transitively. The config
 * rule sees only the Application's own path; this sees what its kustomization lists, e.g. `../../generated/bootstrap`.
 * Reads only the kustomization files it follows.
 */
export function phase0KustomizeProblems(argocd: ArgoCdChart, repoRoot: string, signatures: readonly Phase0Signature[]): ConfigProblem[] {
  const root = path.resolve(repoRoot);
  const model = coverageModel(argocd);
  const dirs = signatures.flatMap((s) => (s.paths ?? []).map((p) => ({ signature: s, dir: signaturePath(p, model.distPath) })));
  const problems: ConfigProblem[] = [];
  for (const s of model.sources.filter((x) => x.pluginName === undefined && !isInside(x.path, model.distPath))) {
    const queue = [s.path];
    const seen = new Set(queue);
    let found: { via: string; target: string; signature: Phase0Signature; dir: string } | undefined;
    while (queue.length > 0 && found === undefined) {
      const dir = queue.shift()!;
      const file = KUSTOMIZATION_FILES.map((f) => path.posix.join(dir, f)).find((f) => fs.existsSync(path.join(root, f)));
      if (file === undefined) continue;
      for (const entry of kustomizationEntries(fs.readFileSync(path.join(root, file), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:\/\/|^github\.com\//i.test(entry)) continue;
        const target = path.posix.normalize(path.posix.join(dir, entry));
        if (target.startsWith('..')) continue;
        // A listed parent directory is followed, not matched: kustomize loads only what its own kustomization lists.
        const hit = dirs.find((d) => isInside(target, d.dir));
        if (hit) {
          found = { via: file, target, ...hit };
          break;
        }
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
    if (found) {
      problems.push({
        path: s.configPath,
        message: `application '${s.application}' deploys the Phase-0 component '${found.signature.component}' through kustomize: ` +
          `${found.via} (in ${repoRoot}) lists '${found.target}', which holds '${found.dir}' (${found.signature.role}). ` +
          'Argo CD syncs from the git repository that Forgejo serves, and Forgejo needs CNPG and storage, so an Application ' +
          `that owns it re-creates the bootstrap circle. Remove '${found.target}' from ${found.via}.`,
      });
    }
  }
  return problems;
}

/** The `resources`, `bases` and `components` entries of a kustomization; none when it does not parse. */
function kustomizationEntries(content: string): string[] {
  let doc: unknown;
  try {
    doc = parse(content);
  } catch {
    return [];
  }
  if (typeof doc !== 'object' || doc === null) return [];
  const k = doc as Record<string, unknown>;
  return ['resources', 'bases', 'components'].flatMap((key) => (Array.isArray(k[key]) ? k[key].filter((e): e is string => typeof e === 'string') : []));
}

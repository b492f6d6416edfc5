import YAML from 'yaml';
import { OutputTree } from '../synth/output-tree';
import { OutputProblem } from './output-problem';

const REPOSITORY_LABEL = 'argocd.argoproj.io/secret-type';

/**
 * Cross-file rule: Argo CD uses a repository credential only for the exact URL in it, so the generated
 * credential (a kustomize `secretGenerator` labelled `argocd.argoproj.io/secret-type: repository`) must name
 * the URL the root app reads. Otherwise the root app of a private repository never syncs.
 */
export function repoCredentialProblems(tree: OutputTree): OutputProblem[] {
  const rootFile = [...tree.keys()].find((f) => /(^|\/)argocd\/root\/[^/]+\.yaml$/.test(f));
  if (!rootFile) return [];
  const root = YAML.parse(tree.get(rootFile) as string);
  const rootUrl: unknown = root?.spec?.source?.repoURL ?? root?.spec?.sources?.[0]?.repoURL;
  const problems: OutputProblem[] = [];
  for (const [file, content] of tree) {
    if (!file.endsWith('kustomization.yaml')) continue;
    const k = YAML.parse(content);
    for (const [i, gen] of (k?.secretGenerator ?? []).entries()) {
      if (gen?.options?.labels?.[REPOSITORY_LABEL] !== 'repository') continue;
      const url = (gen.literals ?? []).find((l: string) => l.startsWith('url='))?.slice('url='.length);
      if (url !== rootUrl) {
        problems.push({
          file,
          object: `Secret ${gen.name}`,
          path: `secretGenerator[${i}].literals`,
          message: `repository credential url '${url}' is not the root app's repoURL '${rootUrl}' (${rootFile}); ` +
            'Argo CD matches credentials by exact URL, so the root app could not read the repository. Derive both from git.source.',
        });
      }
    }
  }
  return problems;
}

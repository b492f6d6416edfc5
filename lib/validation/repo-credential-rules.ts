import { ManifestDocument } from './manifest-documents';
import { OutputProblem } from './output-problem';

const REPOSITORY_LABEL = 'argocd.argoproj.io/secret-type';

/**
 * Cross-file rule: Argo CD uses a repository credential only for the exact URL in it, so the generated
 * credential (a kustomize `secretGenerator` labelled `argocd.argoproj.io/secret-type: repository`) must name
 * the URL the root app reads. Otherwise the root app of a private repository never syncs.
 */
export function repoCredentialProblems(documents: readonly ManifestDocument[]): OutputProblem[] {
  const rootDoc = documents.find((d) => d.role === 'object' && /(^|\/)argocd\/root\/[^/]+\.yaml$/.test(d.file));
  if (!rootDoc) return [];
  const rootFile = rootDoc.file;
  const root: any = rootDoc.value;
  const rootUrl: unknown = root?.spec?.source?.repoURL ?? root?.spec?.sources?.[0]?.repoURL;
  const problems: OutputProblem[] = [];
  for (const doc of documents) {
    if (doc.role !== 'kustomization') continue;
    const file = doc.file;
    const k: any = doc.value;
    const generators: any[] = Array.isArray(k.secretGenerator) ? k.secretGenerator : [];
    for (const [i, gen] of generators.entries()) {
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

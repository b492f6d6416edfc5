import { ManifestDocument } from './manifest-documents';
import { OutputProblem } from './output-problem';

const REPOSITORY_LABEL = 'argocd.argoproj.io/secret-type';

/**
 * Cross-file rule: Argo CD uses a repository credential only for the exact URL in it, so the generated
 * credential (a kustomize `secretGenerator` labelled `argocd.argoproj.io/secret-type: repository`) must name
 * the URL the root app reads. Otherwise the root app of a private repository never syncs. After the cutover the
 * bootstrap also applies the root app reading the GitHub seed first (a rebuild), so its URL is allowed too: the
 * root app's repoURL in a Phase-0 step file.
 */
export function repoCredentialProblems(documents: readonly ManifestDocument[]): OutputProblem[] {
  const rootDoc = documents.find((d) => d.role === 'object' && /(^|\/)argocd\/root\/[^/]+\.yaml$/.test(d.file));
  if (!rootDoc) return [];
  const rootFile = rootDoc.file;
  const root: any = rootDoc.value;
  const urlOf = (app: any): unknown => app?.spec?.source?.repoURL ?? app?.spec?.sources?.[0]?.repoURL;
  const rootUrl = urlOf(root);
  const seedUrls = new Set(documents
    .filter((d) => d.role === 'object' && /(^|\/)bootstrap\//.test(d.file))
    .map((d) => d.value as any)
    .filter((v) => v?.kind === 'Application' && v?.metadata?.name === root?.metadata?.name)
    .map(urlOf));
  const problems: OutputProblem[] = [];
  for (const doc of documents) {
    if (doc.role !== 'kustomization') continue;
    const file = doc.file;
    const k: any = doc.value;
    const generators: any[] = Array.isArray(k.secretGenerator) ? k.secretGenerator : [];
    for (const [i, gen] of generators.entries()) {
      if (gen?.options?.labels?.[REPOSITORY_LABEL] !== 'repository') continue;
      const url = (gen.literals ?? []).find((l: string) => l.startsWith('url='))?.slice('url='.length);
      if (url !== rootUrl && !seedUrls.has(url)) {
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

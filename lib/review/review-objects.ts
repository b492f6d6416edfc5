import { parseAllDocuments } from 'yaml';

/** A synthesized tree as the review reads it: file contents keyed by path relative to `dist/`. */
export type ReviewTree = ReadonlyMap<string, string>;

/** Who an object is to the API server: group, version, kind, namespace and name. */
export interface ObjectIdentity {
  /** API group; `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** `''` for cluster-scoped objects and for files that are not Kubernetes objects. */
  readonly namespace: string;
  readonly name: string;
}

/** One object of a synthesized tree, with where it is delivered from. */
export interface ReviewObject {
  /** Stable key across both sides: where it is delivered (`bootstrap:<step name>` or `argocd`), group, kind, namespace, name. */
  readonly key: string;
  readonly id: ObjectIdentity;
  /** The file it was read from, relative to `dist/`. */
  readonly file: string;
  /** The bootstrap step folder or file name, e.g. `06-forgejo`, when the object is applied by the runbook. */
  readonly step?: string;
  /** The object (or, for a file that is not a Kubernetes object, its parsed content). */
  readonly body: any;
}

/** `dist/README.md` is the overview of the tree, derived from everything else and never applied: not reviewed. */
const NOT_APPLIED = new Set(['README.md']);

/** The kind given to a file that holds no Kubernetes object (Helm values, the runbook). */
export const FILE_KIND = 'File';
/** Put before the kind of a kustomize `$patch: delete` document: it names an upstream object it removes. */
export const DELETE_PATCH_PREFIX = '$patch: delete of ';
/** The kind given to each Helm release the runbook installs (a `helm_release` line of `bootstrap.sh`). */
export const HELM_RELEASE_KIND = 'HelmRelease';

/**
 * Every object of `tree`, keyed so that the same object on both sides has the same key. The key leaves out the
 * step number (`NN-` is derived from the order and moves when a step is added), but keeps whether the runbook or
 * Argo CD delivers the object: after the cutover the root app and every Application exist twice (`argocd/apps`
 * and `argocd/seed-apps`, the root app in a bootstrap step and in `argocd/root`).
 */
export function reviewObjects(tree: ReviewTree): Map<string, ReviewObject> {
  const objects = new Map<string, ReviewObject>();
  const add = (o: Omit<ReviewObject, 'key'>, scope: string) => {
    const base = `${scope}|${o.id.group}/${o.id.kind}/${o.id.namespace}/${o.id.name}`;
    // Two documents with one identity in one scope (a kustomize patch next to its resource): keep both, by file.
    const key = objects.has(base) ? `${base}|${o.file}` : base;
    objects.set(key, { key, ...o });
  };
  for (const [file, content] of [...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (NOT_APPLIED.has(file)) continue;
    const place = placeOf(file);
    if (file === 'bootstrap/bootstrap.sh') {
      for (const release of helmReleases(content)) add({ id: release.id, file, step: release.step, body: release.body }, `bootstrap:${stepName(release.step)}`);
      add({ id: fileId(file), file, body: { lines: content.split('\n') } }, place.scope);
      continue;
    }
    if (!/\.ya?ml$/.test(file)) {
      add({ id: fileId(file), file, step: place.step, body: { lines: content.split('\n') } }, place.scope);
      continue;
    }
    const docs = parseAllDocuments(content).map((d) => d.toJSON()).filter((d) => d !== null && d !== undefined);
    for (const doc of docs) {
      const found = isObject(doc) && typeof doc.kind === 'string' && typeof doc.apiVersion === 'string'
        ? objectId(doc, place.relative) : fileId(place.relative);
      // A kustomize delete patch (the plugin step's cert-manager objects) removes an object of the upstream manifest:
      // adding one must not read as adding that object.
      const id = isObject(doc) && doc.$patch === 'delete' ? { ...found, kind: `${DELETE_PATCH_PREFIX}${found.kind}` } : found;
      add({ id, file, step: place.step, body: doc }, place.scope);
    }
  }
  return objects;
}

/** The step of a `bootstrap/` file (`bootstrap/06-forgejo.yaml`: `06-forgejo`) and the scope of its objects. */
function placeOf(file: string): { scope: string; step?: string; relative: string } {
  const parts = file.split('/');
  if (parts[0] === 'bootstrap' && parts.length >= 2 && /^\d+-/.test(parts[1])) {
    const step = parts[1].replace(/\.ya?ml$/, '');
    return { scope: `bootstrap:${stepName(step)}`, step, relative: parts.slice(2).join('/') || parts[1] };
  }
  if (parts[0] === 'bootstrap') return { scope: 'bootstrap', relative: file };
  if (parts[0] === 'argocd' && parts[1] === 'seed-apps') return { scope: 'argocd-seed', relative: file };
  return { scope: 'argocd', relative: file };
}

/** A step's name without its derived number: `06-forgejo` is `forgejo`. */
export function stepName(step: string): string {
  return step.replace(/^\d+-/, '');
}

function objectId(doc: Record<string, any>, relative: string): ObjectIdentity {
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/', 2) : ['', doc.apiVersion];
  const name = typeof doc.metadata?.name === 'string' ? doc.metadata.name : relative;
  return { group, version, kind: doc.kind, namespace: typeof doc.metadata?.namespace === 'string' ? doc.metadata.namespace : '', name };
}

function fileId(name: string): ObjectIdentity {
  return { group: '', version: '', kind: FILE_KIND, namespace: '', name };
}

/**
 * The Phase-0 Helm releases of the runbook: `helm_release <step> <release> <chart> <repo> <version> <namespace> ...`
 * (lib/output/render-runbook.ts). The chart pin of Cilium and Longhorn lives only there.
 */
function helmReleases(script: string): { id: ObjectIdentity; step: string; body: Record<string, string> }[] {
  const steps = new Map<string, string>();
  for (const m of script.matchAll(/^step (\d+) (\S+) /gm)) steps.set(m[2], `${m[1].padStart(2, '0')}-${m[2]}`);
  return [...script.matchAll(/^helm_release (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)/gm)].map((m) => ({
    id: { group: 'helm.sh', version: '', kind: HELM_RELEASE_KIND, namespace: m[6], name: m[2] },
    step: steps.get(m[1]) ?? m[1],
    body: { chart: m[3], repo: m[4], version: m[5] },
  }));
}

/** `apiVersion` of an identity as Kubernetes writes it. */
export function apiVersionOf(id: ObjectIdentity): string {
  return id.group === '' ? id.version : `${id.group}/${id.version}`;
}

/** `Deployment cicd/forgejo`, `Namespace cicd`: how an object is named in the report. */
export function describeObject(id: ObjectIdentity): string {
  return `${id.kind} ${id.namespace === '' ? '' : `${id.namespace}/`}${id.name}`;
}

export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The homelab repository as Argo CD's repo server reads it for the simulation: the generated tree under its prefix
 * (`dist/` is committed as `k8s/generated/`), files outside it (`RepositoryInput.repoFiles`), kustomizations, and the
 * parameter overrides Argo CD Image Updater writes. Everything here is a pure function of the input.
 */
import { parseAllDocuments } from 'yaml';
import { OutputTree } from '../output/output-tree';
import { CLUSTER_SCOPED_KINDS } from '../shared/cluster-resources';
import { appDistFolder } from '../shared/delivery-layout';
import { remoteManifestObjects } from './barman-cloud';
import { rolloutsReleaseObjects } from './rollouts-controller';

type Obj = Record<string, any>;

/** What the repository is made of: the synthesized tree and the files outside it (`RepositoryInput` extends it). */
export interface RepositoryInput {
  /** The generated tree, keyed relative to `dist/`. */
  readonly tree: OutputTree;
  /**
   * Files of the homelab repository outside the generated tree, by repository-relative path: what an Application
   * whose source path is outside `dist/` reads, e.g. an app's own kustomization `k8s/apps/<name>/kustomization.yaml`
   * whose `resources` name the generated folder. An Application whose path is in neither is opaque content.
   * @default - the adoption step's kustomization of each app directory (`adoptedAppOverlays`)
   */
  readonly repoFiles?: ReadonlyMap<string, string>;
}

function docs(text: string): Obj[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Obj).filter((d) => d !== null && typeof d === 'object');
}

/**
 * The objects an Application's sources render from the homelab repository (the generated tree and `repoFiles`),
 * empty when its content is not in the output (a chart, a plugin, a hand-written folder). Sources are rendered as
 * `renderedObjects` says, with Argo CD's parameter overrides (`applySourceOverrides`).
 */
export function applicationObjects(input: RepositoryInput, app: Obj): Obj[] {
  const repo = repoView(input);
  const sources = (app.spec?.sources ?? [app.spec?.source]) as Obj[];
  const objs: Obj[] = [];
  for (const s of sources) {
    // A chart or a config management plugin renders what the output does not hold: opaque.
    if (typeof s?.path !== 'string' || s.chart !== undefined || s.plugin !== undefined) continue;
    const dir = normalizePath(s.path);
    objs.push(...applySourceOverrides(renderedObjects(dir, repo), dir, String(app.metadata?.name ?? ''), repo));
  }
  return objs;
}

/** Whether an Application's (first) source is a Kustomize directory: one with a `kustomization.yaml`. */
export function isKustomizeSource(input: RepositoryInput, app: Obj): boolean {
  const source = ((app.spec?.sources ?? [app.spec?.source]) as Obj[])[0];
  return typeof source?.path === 'string' && source.chart === undefined && source.plugin === undefined
    && repoView(input).read(`${normalizePath(source.path)}/kustomization.yaml`) !== undefined;
}

/** The path prefix of the generated tree in the repository, read from the root Application's path. */
export function distPrefixOf(tree: OutputTree): string {
  const root = docs(tree.get('argocd/root/root.yaml') ?? '')[0];
  const rootPath = String(root?.spec?.source?.path ?? '');
  return rootPath.endsWith('argocd/apps') ? rootPath.slice(0, -'argocd/apps'.length) : '';
}

/** The homelab repository as the repo server reads it: the generated tree under the dist prefix, then `repoFiles`. */
function repoView(input: RepositoryInput): RepoView {
  const prefix = distPrefixOf(input.tree);
  const tree = input.tree;
  const outside = new Map([...adoptedAppOverlays(tree), ...(input.repoFiles ?? new Map<string, string>())]);
  return {
    read: (path) => (path.startsWith(prefix) ? tree.get(path.slice(prefix.length)) : undefined) ?? outside.get(path),
    filesUnder: (dir) => {
      if (dir === '') return [];
      const files: string[] = [];
      for (const file of tree.keys()) if (`${prefix}${file}`.startsWith(`${dir}/`)) files.push(`${prefix}${file}`);
      for (const file of outside.keys()) if (file.startsWith(`${dir}/`)) files.push(file);
      return files.filter((f) => f.endsWith('.yaml') && !/(^|\/)\.argocd-source[^/]*$/.test(f));
    },
  };
}

/**
 * The parameter-override files Argo CD reads from a source path, `.argocd-source.yaml` then
 * `.argocd-source-<app>.yaml`, merged into a Kustomize source (argo-cd v3.5.1 reposerver/repository/repository.go:
 * 78-79, 1860-1917). Argo CD Image Updater writes the second (`kustomize: { images: ["<name>:<tag>@sha256:<digest>"] }`,
 * argocd-image-updater v1.3.0 pkg/argocd/update.go:538-560); each image is then set as `kustomize edit set image`
 * does: every container whose image name (without tag and digest) is `<name>` gets the new reference.
 */
function applySourceOverrides(objs: Obj[], dir: string, appName: string, repo: RepoView): Obj[] {
  if (repo.read(`${dir}/kustomization.yaml`) === undefined) return objs; // a directory source takes no overrides
  const images = [`${dir}/.argocd-source.yaml`, `${dir}/.argocd-source-${appName}.yaml`]
    .flatMap((f) => ((docs(repo.read(f) ?? '')[0]?.kustomize?.images ?? []) as string[]));
  if (images.length === 0) return objs;
  const replace = (image: string): string => {
    let out = image;
    for (const ref of images) {
      const [from, to] = ref.includes('=') ? ref.split('=', 2) : [imageName(ref), ref];
      if (imageName(image) === from) out = to;
    }
    return out;
  };
  const setImages = (podSpec: Obj | undefined): Obj | undefined => podSpec && {
    ...podSpec,
    ...(podSpec.containers ? { containers: (podSpec.containers as Obj[]).map((c) => ({ ...c, image: replace(String(c.image)) })) } : {}),
    ...(podSpec.initContainers ? { initContainers: (podSpec.initContainers as Obj[]).map((c) => ({ ...c, image: replace(String(c.image)) })) } : {}),
  };
  return objs.map((o) => (o.spec?.template?.spec
    ? { ...o, spec: { ...o.spec, template: { ...o.spec.template, spec: setImages(o.spec.template.spec) } } }
    : o));
}

/** An image reference without its digest and tag: `host:3000/a/b:1.2@sha256:…` → `host:3000/a/b`. */
export function imageName(ref: string): string {
  const noDigest = ref.split('@')[0];
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/** The homelab repository, by repository-relative path. */
interface RepoView {
  read(path: string): string | undefined;
  /** The `.yaml` files under a directory (recursively), in a stable order. */
  filesUnder(dir: string): string[];
}

/**
 * What the repo server renders from a source path, restricted to what the output uses. A directory with a
 * `kustomization.yaml` is built by kustomize: each local entry of its `resources` is a file or a directory with its
 * own kustomization (kustomize allows one outside the root), rendered in turn; of remote URLs only the release manifests
 * the simulation knows (the Barman Cloud plugin, Argo Rollouts) are rendered, as far as it needs them. Any
 * other directory is a plain one: every YAML file under it (Argo CD's directory source, recursive as the generated
 * tree is laid out). An app's own kustomization outside `dist/` (`k8s/apps/<name>/kustomization.yaml`, in
 * `repoFiles`) thus renders the generated folder it names (`../../generated/apps/<name>`).
 */
function renderedObjects(dir: string, repo: RepoView, seen: Set<string> = new Set()): Obj[] {
  if (seen.has(dir)) return [];
  seen.add(dir);
  const kustomization = repo.read(`${dir}/kustomization.yaml`);
  if (kustomization !== undefined) {
    const k = (docs(kustomization)[0] ?? {}) as Obj;
    const objs = ((k.resources ?? []) as string[]).flatMap((r) => {
      if (/^[a-z]+:\/\//.test(r)) return [...remoteManifestObjects(r), ...rolloutsReleaseObjects(r)];
      const path = normalizePath(`${dir}/${r}`);
      const file = repo.read(path);
      return file !== undefined ? docs(file) : renderedObjects(path, repo, seen);
    });
    // kustomize's `namespace:` sets the namespace of every namespaced object of the kustomization.
    const ns = typeof k.namespace === 'string' ? k.namespace : undefined;
    return ns === undefined ? objs : objs.map((o) => (o.kind in CLUSTER_SCOPED_KINDS ? o : { ...o, metadata: { ...o.metadata, namespace: ns } }));
  }
  return repo.filesUnder(dir).flatMap((f) => docs(repo.read(f) ?? ''));
}

/** `a/b/../c/.` → `a/c`; a leading `./` and a trailing slash dropped. */
function normalizePath(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/** An app of `delivery.apps`: its name and its own directory in the repository. */
export interface AdoptedApp {
  readonly name: string;
  /** Repository-relative, e.g. `k8s/apps/hello`. */
  readonly overlayPath: string;
}

/**
 * The user-owned kustomization of each app's directory, by repository-relative path, as `RepositoryInput.repoFiles`
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

/**
 * The adoption step's kustomization in each app directory the tree's Applications read (README: an app's directory
 * holds a kustomization the user creates once, over the generated folder): for every Application whose path is
 * outside the generated tree and whose name has a generated folder `apps/<name>/` with a kustomization. The
 * simulation reads these unless `repoFiles` holds the file.
 */
export function adoptedAppOverlays(tree: OutputTree): Map<string, string> {
  const prefix = distPrefixOf(tree);
  const apps: AdoptedApp[] = [];
  for (const [file, text] of tree) {
    if (!file.startsWith('argocd/apps/') || !file.endsWith('.yaml')) continue;
    for (const app of docs(text)) {
      const path = app.kind === 'Application' ? app.spec?.source?.path : undefined;
      if (typeof path !== 'string' || path.startsWith(prefix) || app.spec?.source?.chart !== undefined) continue;
      if (!tree.has(`${appDistFolder(String(app.metadata?.name))}/kustomization.yaml`)) continue;
      apps.push({ name: String(app.metadata.name), overlayPath: path });
    }
  }
  return appOverlayFiles(tree, apps);
}

import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';

/** Directories the scan never enters. */
export const SKIPPED_DIRECTORIES: readonly string[] = ['.git', 'node_modules'];

/** File names Argo CD and kustomize recognise as a kustomization. */
export const KUSTOMIZATION_FILES: readonly string[] = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** Files Argo CD's directory source reads (`.jsonnet` is left out: the homelab has none). */
const MANIFEST_FILE = /\.(ya?ml|json)$/;

/** References a kustomization makes to other paths, as written in it. */
export interface KustomizationRefs {
  /** Entries of `resources`, `bases` and `components`: directories or files whose objects it renders. */
  readonly resources: readonly string[];
  /** Every other string value (patches, generator files, CRDs, …): files it reads without rendering them. */
  readonly otherStrings: readonly string[];
  /** The file does not parse as YAML; kustomize would fail on it. */
  readonly invalid: boolean;
}

/** An Argo CD `Application` or `ApplicationSet` document found in the tree. */
export interface ArgoApplicationDocument {
  readonly kind: string;
  /** `metadata.name`; absent when the document does not parse (e.g. a template). */
  readonly name?: string;
}

/** One file of the scanned tree. */
export interface RepoFile {
  /** Repo-relative path with `/` separators. */
  readonly path: string;
  /** Repo-relative directory (`.` for the root). */
  readonly dir: string;
  /** Base name. */
  readonly name: string;
  /**
   * A Kubernetes manifest: a YAML or JSON file with a top-level `apiVersion` and `kind`. Kustomize's own files
   * (kustomizations, components) are not manifests.
   */
  readonly manifest: boolean;
  /** The `kind`s of its documents, in file order, where they are plain text. */
  readonly kinds: readonly string[];
  /** Its Argo CD `Application` and `ApplicationSet` documents, in file order. */
  readonly argoApplications: readonly ArgoApplicationDocument[];
  /** Has a top-level `sops:` block: the file is SOPS-encrypted. */
  readonly sopsEncrypted: boolean;
  /** Set when the file is a kustomization (see `KUSTOMIZATION_FILES`). */
  readonly kustomization?: KustomizationRefs;
}

/** One directory of the scanned tree. */
export interface RepoDirectory {
  /** Repo-relative path (`.` for the root). */
  readonly path: string;
  /** Repo-relative paths of the files directly inside, sorted. */
  readonly files: readonly string[];
  /** Repo-relative path of its kustomization file, if it has one. */
  readonly kustomization?: string;
  /** Holds a `Chart.yaml`: a Helm chart, rendered as a whole. */
  readonly helmChart: boolean;
}

/** A homelab checkout as the audit sees it: every file and directory, each map in sorted path order. */
export interface RepoTree {
  /** Absolute path of the checkout. */
  readonly root: string;
  readonly directories: ReadonlyMap<string, RepoDirectory>;
  readonly files: ReadonlyMap<string, RepoFile>;
}

/**
 * Reads the checkout at `root` in one depth-first walk with every directory listing sorted, so the result
 * does not depend on the file system's order. Skips `SKIPPED_DIRECTORIES` and symbolic links. Reads the
 * content of YAML, JSON and kustomization files only.
 */
export function scanRepoTree(root: string): RepoTree {
  const absRoot = path.resolve(root);
  const directories = new Map<string, RepoDirectory>();
  const files = new Map<string, RepoFile>();

  const walk = (rel: string) => {
    const abs = rel === '.' ? absRoot : path.join(absRoot, rel);
    const entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => compare(a.name, b.name));
    const dirFiles: string[] = [];
    const subdirs: string[] = [];
    let kustomization: string | undefined;
    for (const entry of entries) {
      const child = rel === '.' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.includes(entry.name)) subdirs.push(child);
      } else if (entry.isFile()) {
        dirFiles.push(child);
        const file = readRepoFile(path.join(abs, entry.name), child, rel, entry.name);
        files.set(child, file);
        // kustomize takes the first name it finds, in the order of KUSTOMIZATION_FILES.
        if (file.kustomization && (!kustomization || rank(entry.name) < rank(path.posix.basename(kustomization)))) kustomization = child;
      }
    }
    const helmChart = dirFiles.includes(rel === '.' ? 'Chart.yaml' : `${rel}/Chart.yaml`);
    directories.set(rel, { path: rel, files: dirFiles, kustomization, helmChart });
    for (const sub of subdirs) walk(sub);
  };
  walk('.');

  return { root: absRoot, directories: sortedMap(directories), files: sortedMap(files) };
}

/** Byte-order comparison, the same in every locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function rank(name: string): number {
  return KUSTOMIZATION_FILES.indexOf(name);
}

function sortedMap<T>(map: Map<string, T>): Map<string, T> {
  return new Map([...map.entries()].sort(([a], [b]) => compare(a, b)));
}

const NO_FILE_INFO = { manifest: false, kinds: [], argoApplications: [], sopsEncrypted: false } as const;

function readRepoFile(abs: string, rel: string, dir: string, name: string): RepoFile {
  const base = { path: rel, dir, name };
  if (KUSTOMIZATION_FILES.includes(name)) {
    return { ...base, ...NO_FILE_INFO, kustomization: kustomizationRefs(fs.readFileSync(abs, 'utf8')) };
  }
  if (!MANIFEST_FILE.test(name)) return { ...base, ...NO_FILE_INFO };
  const content = fs.readFileSync(abs, 'utf8');
  return { ...base, ...(name.endsWith('.json') ? jsonInfo(content) : yamlInfo(content)) };
}

// Top-level keys start at column 0; nested keys and block-scalar lines are indented.
const YAML_API_VERSION = /^apiVersion:[ \t]*["']?([^\s"'#]*)/gm;
const YAML_KIND = /^kind:[ \t]*["']?([A-Za-z][A-Za-z0-9]*)?/gm;
const YAML_SOPS = /^sops:[ \t]*$/m;
const ARGO_APPLICATION_KINDS = ['Application', 'ApplicationSet'];

function yamlInfo(content: string): Omit<RepoFile, 'path' | 'dir' | 'name'> {
  const apiVersions = [...content.matchAll(YAML_API_VERSION)].map((m) => m[1]);
  const kindLines = [...content.matchAll(YAML_KIND)];
  const kinds = kindLines.map((m) => m[1]).filter((k): k is string => k !== undefined);
  const kustomize = apiVersions.some((v) => v.startsWith('kustomize.config.k8s.io/'));
  const manifest = apiVersions.length > 0 && kindLines.length > 0 && !kustomize;
  const argo = manifest && apiVersions.some((v) => v.startsWith('argoproj.io/')) && kinds.some((k) => ARGO_APPLICATION_KINDS.includes(k));
  return {
    manifest,
    kinds,
    argoApplications: argo ? argoApplications(content, kinds) : [],
    sopsEncrypted: YAML_SOPS.test(content),
  };
}

function jsonInfo(content: string): Omit<RepoFile, 'path' | 'dir' | 'name'> {
  const kind = /"kind"\s*:\s*"([A-Za-z][A-Za-z0-9]*)"/.exec(content);
  const manifest = /"apiVersion"\s*:/.test(content) && kind !== null && !/"apiVersion"\s*:\s*"kustomize\.config\.k8s\.io\//.test(content);
  return { manifest, kinds: manifest ? [kind[1]] : [], argoApplications: [], sopsEncrypted: /"sops"\s*:\s*\{/.test(content) };
}

/** The documents of a YAML file, or undefined when it does not parse. */
function yamlDocuments(content: string): readonly unknown[] | undefined {
  const docs = parseAllDocuments(content);
  if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return undefined;
  return docs.map((d) => d.toJS());
}

/** The Application and ApplicationSet documents; when the file does not parse, their kinds without names. */
function argoApplications(content: string, kinds: readonly string[]): ArgoApplicationDocument[] {
  const docs = yamlDocuments(content);
  const unnamed = kinds.filter((k) => ARGO_APPLICATION_KINDS.includes(k)).map((kind) => ({ kind }));
  if (!docs) return unnamed;
  const found: ArgoApplicationDocument[] = [];
  for (const doc of docs) {
    const obj = doc as { kind?: unknown; metadata?: { name?: unknown } } | null;
    if (obj && typeof obj.kind === 'string' && ARGO_APPLICATION_KINDS.includes(obj.kind)) {
      found.push(typeof obj.metadata?.name === 'string' ? { kind: obj.kind, name: obj.metadata.name } : { kind: obj.kind });
    }
  }
  return found;
}

const RESOURCE_FIELDS = ['resources', 'bases', 'components'];

function kustomizationRefs(content: string): KustomizationRefs {
  // A kustomization is one document; kustomize rejects a file of several.
  const docs = yamlDocuments(content);
  if (!docs || docs.length > 1) return { resources: [], otherStrings: [], invalid: true };
  const obj = (docs[0] ?? null) as Record<string, unknown> | null;
  const resources: string[] = [];
  const otherStrings: string[] = [];
  for (const [key, value] of Object.entries(obj && typeof obj === 'object' ? obj : {})) {
    if (RESOURCE_FIELDS.includes(key) && Array.isArray(value)) {
      for (const entry of value) if (typeof entry === 'string') resources.push(entry);
    } else {
      collectStrings(value, otherStrings);
    }
  }
  return { resources, otherStrings, invalid: false };
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === 'string') {
    if (!value.includes('\n')) into.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) collectStrings(v, into);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) collectStrings(v, into);
  }
}

import * as YAML from 'yaml';
import { OutputFile } from '../synth/output-tree';
import { FieldPath, formatPath, isObject, JsonObject } from './field-path';
import { OutputProblem } from './output-problem';

/**
 * What a YAML document in the output is to the tool that applies it:
 * - `object`: a whole Kubernetes object (a plain manifest, or a `resources:` file of a kustomization);
 * - `patch`: a strategic-merge or merge patch of a kustomization, a partial object;
 * - `kustomization`: a `kustomization.yaml`, read by kustomize and never sent to the cluster.
 */
export type DocumentRole = 'object' | 'patch' | 'kustomization';

/** One parsed YAML document of the output tree. */
export interface ManifestDocument {
  /** Output file the document is in. */
  readonly file: string;
  /** Position of the document in its file (0 for the first). */
  readonly index: number;
  readonly role: DocumentRole;
  /** The document as JSON: integers that fit a double are numbers. */
  readonly value: JsonObject;
  /** Where the document sits in its file, for inline patches: e.g. `patches[1].patch`. */
  readonly location?: string;
  /**
   * The namespace kustomize sets on every object of the folder (its `namespace:`), for objects and patches in a
   * kustomization folder.
   *
   * @default - none: a plain file, or a kustomization without `namespace:`
   */
  readonly kustomizeNamespace?: string;
  /** True when the document is built by kustomize (its folder has a `kustomization.yaml`). */
  readonly inKustomization: boolean;
}

/** Every YAML document of a tree, with the problems met while reading them. */
export interface ParsedTree {
  readonly documents: readonly ManifestDocument[];
  readonly problems: readonly OutputProblem[];
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function dirname(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? '' : file.slice(0, i);
}

function basename(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}

function isYamlFile(file: string): boolean {
  return /\.ya?ml$/.test(file) || basename(file) === 'Kustomization';
}

/**
 * Helm values files (`values/<app>.yaml`, `values.yaml`, `<x>-values.yaml`) are chart input, not manifests:
 * only the secret scanner reads them.
 */
export function isHelmValuesFile(file: string): boolean {
  return file.startsWith('values/') || file.includes('/values/') || /(^|[-.])values\.ya?ml$/.test(basename(file));
}

/** Joins a kustomization-relative reference onto its folder, resolving `.` and `..`. */
function resolveRef(dir: string, ref: string): string {
  const parts = dir === '' ? [] : dir.split('/');
  for (const seg of ref.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

function isRemote(ref: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(ref) || /^(git@|github\.com\/)/.test(ref);
}

/**
 * Turns integers that fit a double into numbers, and reports those that do not: JSON decoders in the apply
 * path (kubectl, Argo CD, the API server) read numbers as doubles or int64, so they would silently change.
 */
function normalizeIntegers(v: unknown, path: (string | number)[], big: { path: FieldPath; value: string }[]): unknown {
  if (typeof v === 'bigint') {
    if (v > MAX_SAFE || v < -MAX_SAFE) big.push({ path: [...path], value: String(v) });
    return Number(v);
  }
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
    // As the YAML has it: a double prints as its shortest decimal form.
    big.push({ path: [...path], value: String(v) });
    return v;
  }
  if (Array.isArray(v)) return v.map((x, i) => normalizeIntegers(x, [...path, i], big));
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = normalizeIntegers(x, [...path, k], big);
    return out;
  }
  return v;
}

interface RawDocument {
  readonly index: number;
  readonly value: unknown;
}

/**
 * The documents of a YAML file: those this program generated as they are, text parsed (reporting syntax errors,
 * duplicate keys and integers beyond 2^53).
 */
function parseYaml(file: string, content: OutputFile, problems: OutputProblem[]): RawDocument[] {
  const out: RawDocument[] = [];
  if (typeof content !== 'string') {
    // As JSON, which is what the YAML reads back as: `undefined` fields dropped, objects copied.
    content.forEach((value, index) => {
      if (value !== null && value !== undefined) out.push({ index, value: normalized(file, JSON.parse(JSON.stringify(value)), problems) });
    });
    return out;
  }
  const docs = YAML.parseAllDocuments(content, { intAsBigInt: true, uniqueKeys: true });
  docs.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      for (const err of doc.errors) {
        problems.push({
          file,
          message: `invalid YAML in document ${index + 1}: ${err.message.split('\n')[0].replace(/:$/, '')}; fix the generator that wrote this file`,
        });
      }
      return;
    }
    if (doc.contents === null) return;
    out.push({ index, value: normalized(file, doc.toJS({ maxAliasCount: 100 }), problems) });
  });
  return out;
}

/** A document's value with integers as numbers; reports integers beyond 2^53. */
function normalized(file: string, raw: unknown, problems: OutputProblem[]): unknown {
  const big: { path: FieldPath; value: string }[] = [];
  const value = normalizeIntegers(raw, [], big);
  for (const b of big) {
    problems.push({
      file,
      path: formatPath(b.path),
      message: `integer ${b.value} is beyond 2^53 and changes when read as JSON; `
        + 'use a smaller number or a string (Kubernetes int64 fields stay below 2^53 in practice)',
    });
  }
  return value;
}

/** A kustomization, with the files it refers to. */
interface KustomizationInfo {
  readonly file: string;
  readonly dir: string;
  readonly namespace?: string;
  /** Local files kustomize reads as whole objects. */
  readonly resources: Set<string>;
  /** Local files kustomize reads as strategic-merge or merge patches. */
  readonly patchFiles: Set<string>;
  /** Local files that are JSON 6902 patches (lists of operations, not objects). */
  readonly jsonPatchFiles: Set<string>;
  /** Inline patches (`patches[i].patch` strings). */
  readonly inlinePatches: { readonly location: string; readonly text: string }[];
  /** Local files that generators and transformers read (`files:`, `envs:`, `configurations:`...). */
  readonly otherFiles: Set<string>;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function readKustomization(file: string, value: JsonObject): KustomizationInfo {
  const dir = dirname(file);
  const info: KustomizationInfo = {
    file,
    dir,
    namespace: typeof value.namespace === 'string' ? value.namespace : undefined,
    resources: new Set(),
    patchFiles: new Set(),
    jsonPatchFiles: new Set(),
    inlinePatches: [],
    otherFiles: new Set(),
  };
  for (const r of [...strings(value.resources), ...strings(value.bases), ...strings(value.components)]) {
    if (!isRemote(r)) info.resources.add(resolveRef(dir, r));
  }
  for (const p of strings(value.patchesStrategicMerge)) {
    // An entry is either a file name or an inline patch.
    if (p.includes('\n') || p.includes(':')) info.inlinePatches.push({ location: 'patchesStrategicMerge', text: p });
    else info.patchFiles.add(resolveRef(dir, p));
  }
  const patchLists: [string, unknown][] = [['patches', value.patches], ['patchesJson6902', value.patchesJson6902]];
  for (const [key, list] of patchLists) {
    if (!Array.isArray(list)) continue;
    list.forEach((p: unknown, i: number) => {
      if (!isObject(p)) return;
      if (typeof p.path === 'string') {
        (key === 'patchesJson6902' ? info.jsonPatchFiles : info.patchFiles).add(resolveRef(dir, p.path));
      }
      if (typeof p.patch === 'string') info.inlinePatches.push({ location: `${key}[${i}].patch`, text: p.patch });
    });
  }
  for (const genKey of ['configMapGenerator', 'secretGenerator']) {
    const gens = value[genKey];
    if (!Array.isArray(gens)) continue;
    for (const g of gens) {
      if (!isObject(g)) continue;
      for (const f of [...strings(g.files), ...strings(g.envs)]) {
        const target = f.includes('=') ? f.slice(f.indexOf('=') + 1) : f;
        info.otherFiles.add(resolveRef(dir, target));
      }
      if (typeof g.env === 'string') info.otherFiles.add(resolveRef(dir, g.env));
    }
  }
  for (const key of ['configurations', 'crds', 'generators', 'transformers', 'validators', 'replacements']) {
    for (const f of strings(value[key])) if (!isRemote(f)) info.otherFiles.add(resolveRef(dir, f));
  }
  return info;
}

/**
 * Reads every YAML file of the tree and classifies its documents. Kustomization folders are read through their
 * `kustomization.yaml`: its patches are partial objects, its `namespace:` applies to every object, and a local
 * file it names must exist (a YAML file in the folder that it does not name is ignored by kustomize, and reported).
 */
export function parseOutputTree(tree: ReadonlyMap<string, OutputFile>): ParsedTree {
  const problems: OutputProblem[] = [];
  const documents: ManifestDocument[] = [];
  const files = [...tree.keys()].sort();

  const kustomizations = new Map<string, KustomizationInfo>(); // by folder
  const kustomizationDocs: ManifestDocument[] = [];
  for (const file of files) {
    if (!KUSTOMIZATION_FILES.includes(basename(file))) continue;
    const docs = parseYaml(file, tree.get(file) ?? '', problems);
    const first = docs[0];
    if (docs.length !== 1 || !isObject(first.value)) {
      problems.push({ file, message: 'a kustomization must be exactly one YAML mapping; fix the generator that wrote it' });
      continue;
    }
    kustomizations.set(dirname(file), readKustomization(file, first.value));
    kustomizationDocs.push({ file, index: 0, role: 'kustomization', value: first.value, inKustomization: true });
  }

  // What each file is to its kustomization, and references to files the tree does not have.
  const roleOf = new Map<string, { role: 'object' | 'patch' | 'json-patch' | 'other'; k: KustomizationInfo }>();
  for (const k of [...kustomizations.values()]) {
    const refs: [Set<string>, 'object' | 'patch' | 'json-patch' | 'other', string][] = [
      [k.resources, 'object', 'resources'],
      [k.patchFiles, 'patch', 'patches'],
      [k.jsonPatchFiles, 'json-patch', 'patchesJson6902'],
      [k.otherFiles, 'other', 'generator or transformer'],
    ];
    for (const [set, role, what] of refs) {
      for (const ref of [...set].sort()) {
        if (role === 'object' && kustomizations.has(ref)) continue; // a folder with its own kustomization
        if (!tree.has(ref)) {
          // Generator inputs (a deploy key, an env file) may be supplied at apply time and are not in the output.
          if (role === 'other') continue;
          problems.push({
            file: k.file,
            message: `${what} entry '${ref.slice(k.dir.length ? k.dir.length + 1 : 0)}' names a file that is not in the output; `
              + 'kustomize build fails. Write that file or remove the entry',
          });
          continue;
        }
        roleOf.set(ref, { role, k });
      }
    }
    for (const p of k.inlinePatches) {
      const docs = parseYaml(k.file, p.text, problems);
      for (const d of docs) {
        if (!isObject(d.value)) continue; // a JSON 6902 operation list
        documents.push({
          file: k.file, index: d.index, role: 'patch', value: d.value, location: p.location,
          kustomizeNamespace: k.namespace, inKustomization: true,
        });
      }
    }
  }

  for (const file of files) {
    if (!isYamlFile(file) || KUSTOMIZATION_FILES.includes(basename(file)) || isHelmValuesFile(file)) continue;
    const k = kustomizations.get(dirname(file));
    const ref = roleOf.get(file);
    if (k && !ref) {
      problems.push({
        file,
        message: `${k.file} does not name this file, so kustomize ignores it; add it to resources: or patches: there, or stop writing it`,
      });
      continue;
    }
    if (ref && (ref.role === 'json-patch' || ref.role === 'other')) continue;
    const before = problems.length;
    const docs = parseYaml(file, tree.get(file) ?? '', problems);
    if (docs.length === 0 && !k && problems.length === before) {
      problems.push({
        file,
        message: "the file has no objects, and 'kubectl apply -f' fails on it with 'no objects passed to apply'; "
          + 'write its objects or stop writing the file',
      });
    }
    for (const d of docs) {
      if (!isObject(d.value)) {
        problems.push({
          file,
          message: `document ${d.index + 1} is not a YAML mapping but ${Array.isArray(d.value) ? 'a list' : typeof d.value}; `
            + 'every document of a manifest must be one Kubernetes object',
        });
        continue;
      }
      const owner = ref?.k ?? k;
      documents.push({
        file,
        index: d.index,
        role: ref?.role === 'patch' ? 'patch' : 'object',
        value: d.value,
        kustomizeNamespace: owner?.namespace,
        inKustomization: owner !== undefined,
      });
    }
  }
  return { documents: [...kustomizationDocs, ...documents], problems };
}

import { repoCredentialProblems } from './repo-credential-rules';
import { OutputFile } from '../output/output-tree';
import { Finding, formatPath, isObject, show } from './field-path';
import { isHelmValuesFile, ManifestDocument, parseOutputTree } from './manifest-documents';
import { effectiveNamespace, objectFindings } from './object-rules';
import { OutputProblem, OutputValidationError } from './output-problem';
import { cnpgClusterFindings, exceptedFindings, podTemplateFindings } from './pod-security';
import type { PodSecurityException } from '../shared/pod-security';
import { RbacAllowance, rbacFindings } from './rbac-rules';
import { apiVersionsOf, KindInfo, lookupKind, validateAgainstSchema } from './schema-validator';
import { scanTextForSecrets, secretStringFindings, secretValueFindings } from './secret-scanner';

/** Options for `validateOutput`. */
export interface ValidateOutputOptions {
  /**
   * Roles and ClusterRoles that may access Secrets, each with the reason. A Role is named `namespace/name`,
   * a ClusterRole `name`.
   *
   * @default - none: no role may access Secrets
   */
  readonly secretAccessAllowList?: readonly RbacAllowance[];

  /**
   * ClusterRoles we may define and bind cluster-wide, each with the reason.
   *
   * @default - none: every ClusterRole and ClusterRoleBinding we define is a problem
   */
  readonly clusterRoleAllowList?: readonly RbacAllowance[];

  /**
   * Containers that may go beyond the restricted Pod Security profile in named `securityContext` fields, each with
   * the reason (e.g. rootless BuildKit's Unconfined seccomp).
   *
   * @default - none: every container meets the restricted profile
   */
  readonly podSecurityExceptions?: readonly PodSecurityException[];
}

/** Keys of the strategic-merge patch directives, which are not fields of the object. */
function isPatchDirective(key: string): boolean {
  return key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/') || key.startsWith('$deleteFromPrimitiveList/');
}

/** A patch as the schema sees it: without directives, and without `null`s (which delete a field). */
function patchContent(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(patchContent);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (isPatchDirective(k) || x === null) continue;
    out[k] = patchContent(x);
  }
  return out;
}

function objectId(doc: ManifestDocument, info: KindInfo | undefined): string {
  const kind = typeof doc.value.kind === 'string' ? doc.value.kind : '(no kind)';
  const meta = isObject(doc.value.metadata) ? doc.value.metadata : {};
  const name = typeof meta.name === 'string' ? meta.name : '(no name)';
  const ns = info ? effectiveNamespace(doc, info) : typeof meta.namespace === 'string' ? meta.namespace : undefined;
  return ns === undefined ? `${kind}/${name}` : `${kind}/${ns}/${name}`;
}

interface Ranked {
  readonly problem: OutputProblem;
  /** Order within the file: the document, then the path. */
  readonly doc: number;
}

/**
 * A strategic-merge patch `$patch: delete` removes an upstream object from the build (e.g. the cert-manager objects of
 * a release manifest whose CRDs the cluster does not have yet). It only names the object, so no schema of its kind is
 * needed; it must name it and say nothing else, or the reader could think it changes something.
 */
function deletePatchProblems(doc: ManifestDocument, where: string): OutputProblem[] {
  const meta = isObject(doc.value.metadata) ? doc.value.metadata : {};
  const object = `${objectId(doc, undefined)} (patch)`;
  const problems: OutputProblem[] = [];
  if (typeof meta.name !== 'string' || meta.name === '') {
    problems.push({ file: doc.file, object, path: `${where}metadata.name`, message: 'a $patch: delete patch must name the object it removes' });
  }
  const extra = [
    ...Object.keys(doc.value).filter((k) => !['apiVersion', 'kind', 'metadata', '$patch'].includes(k)),
    ...Object.keys(meta).filter((k) => !['name', 'namespace'].includes(k)).map((k) => `metadata.${k}`),
  ].sort();
  for (const field of extra) {
    problems.push({ file: doc.file, object, path: `${where}${field}`,
      message: 'a $patch: delete patch removes the whole object; remove this field (it changes nothing)' });
  }
  return problems;
}

/** Validates one document; returns its problems. */
function documentProblems(doc: ManifestDocument, options: Required<ValidateOutputOptions>): OutputProblem[] {
  const where = doc.location ? `${doc.location}: ` : '';
  if (doc.role === 'kustomization') {
    return [...secretValueFindings(doc, undefined), ...(doc.generated ? secretStringFindings(doc.value) : [])]
      .map((f) => ({ file: doc.file, path: formatPath(f.path), message: f.message }));
  }
  const { apiVersion, kind } = doc.value;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    return [{
      file: doc.file,
      path: doc.location,
      message: `document ${doc.index + 1} has no ${typeof apiVersion !== 'string' ? 'apiVersion' : 'kind'}, so it is not a Kubernetes object; `
        + 'every manifest document needs apiVersion and kind',
    }];
  }
  if (doc.role === 'patch' && doc.value.$patch === 'delete') return deletePatchProblems(doc, where);
  const info = lookupKind(apiVersion, kind);
  const object = objectId(doc, info);
  if (!info) {
    const known = apiVersionsOf(kind);
    return [{
      file: doc.file,
      object,
      path: `${where}apiVersion`,
      message: `no pinned schema defines ${apiVersion} ${kind}; `
        + (known.length ? `did you mean apiVersion ${known.map((v) => `'${v}'`).join(' or ')}?`
          : 'add its CRD to scripts/crd-sources.json and run node scripts/generate-schemas.js'),
    }];
  }
  const partial = doc.role === 'patch';
  const findings: Finding[] = [
    ...objectFindings(doc, info),
    ...exceptedFindings(podTemplateFindings(doc, info), doc, info, object, options.podSecurityExceptions),
    ...cnpgClusterFindings(doc, info),
    ...rbacFindings(doc, info, effectiveNamespace(doc, info), {
      secretAccess: options.secretAccessAllowList,
      clusterRoles: options.clusterRoleAllowList,
    }),
    ...secretValueFindings(doc, info),
    ...(doc.generated ? secretStringFindings(doc.value) : []),
  ];
  // A rule that names a field says more than the schema's type error at the same field.
  const ruled = new Set(findings.map((f) => formatPath(f.path)));
  const schema = validateAgainstSchema(info, partial ? patchContent(doc.value) : doc.value, partial)
    .filter((f) => !ruled.has(formatPath(f.path)));
  return [...schema, ...findings].map((f) => ({
    file: doc.file,
    object: partial ? `${object} (patch)` : object,
    path: `${where}${formatPath(f.path)}` || undefined,
    message: f.message,
  }));
}

function compareRanked(a: Ranked, b: Ranked): number {
  const keys: [string | number, string | number][] = [
    [a.problem.file, b.problem.file],
    [a.doc, b.doc],
    [a.problem.object ?? '', b.problem.object ?? ''],
    [a.problem.path ?? '', b.problem.path ?? ''],
    [a.problem.message, b.problem.message],
  ];
  for (const [x, y] of keys) if (x !== y) return x < y ? -1 : 1;
  return 0;
}

/**
 * Validates a whole output tree (documents as generated, or text as written): every object strictly against the
 * pinned Kubernetes 1.30 and CRD schemas
 * (patches leniently), the rules schemas miss (names, namespaces, labels, port names, large integers), the
 * restricted Pod Security profile and resource rules on every pod template, RBAC least privilege, and a scan of
 * every file for secrets. Returns every problem, sorted by file, document and path; empty when all is well.
 */
export function validateOutput(tree: ReadonlyMap<string, OutputFile>, options: ValidateOutputOptions = {}): OutputProblem[] {
  const opts: Required<ValidateOutputOptions> = {
    secretAccessAllowList: options.secretAccessAllowList ?? [],
    clusterRoleAllowList: options.clusterRoleAllowList ?? [],
    podSecurityExceptions: options.podSecurityExceptions ?? [],
  };
  const ranked: Ranked[] = [];
  for (const a of [...opts.secretAccessAllowList, ...opts.clusterRoleAllowList]) {
    if (a.reason.trim() === '') {
      ranked.push({
        problem: { file: '(validation options)', message: `RBAC allow-list entry for ${show(a.role)} has no reason; say why the role needs it` },
        doc: -1,
      });
    }
  }
  for (const e of opts.podSecurityExceptions) {
    if (e.reason.trim() === '') {
      ranked.push({
        problem: { file: '(validation options)', message: `Pod Security exception for ${show(e.object)} container ${show(e.container)} has no reason; say why it needs it` },
        doc: -1,
      });
    }
  }
  const parsed = parseOutputTree(tree);
  for (const problem of parsed.problems) ranked.push({ problem, doc: -1 });
  for (const doc of parsed.documents) {
    for (const problem of documentProblems(doc, opts)) ranked.push({ problem, doc: doc.index });
  }
  for (const [file, content] of tree) {
    // Text is scanned line by line; generated documents field by field (documentProblems, and Helm values here).
    if (typeof content !== 'string') {
      if (!isHelmValuesFile(file)) continue;
      content.forEach((value, doc) => {
        for (const f of secretStringFindings(value)) ranked.push({ problem: { file, path: formatPath(f.path), message: f.message }, doc });
      });
      continue;
    }
    for (const problem of scanTextForSecrets(file, content)) ranked.push({ problem, doc: -1 });
  }
  for (const problem of repoCredentialProblems(parsed.documents)) ranked.push({ problem, doc: -1 });
  ranked.sort(compareRanked);
  const seen = new Set<string>();
  const out: OutputProblem[] = [];
  for (const { problem } of ranked) {
    const key = JSON.stringify([problem.file, problem.object, problem.path, problem.message]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(problem);
  }
  return out;
}

/** Throws an `OutputValidationError` listing every problem of the tree, if it has any. */
export function assertValidOutput(tree: ReadonlyMap<string, OutputFile>, options: ValidateOutputOptions = {}): void {
  const problems = validateOutput(tree, options);
  if (problems.length > 0) throw new OutputValidationError(problems);
}

import * as path from 'path';
import { crdImmutableFields, CrdImmutableField, IMMUTABLE_FIELDS } from '../shared/immutable-fields';
import { compareQuantities, parseQuantity } from '../shared/quantity';
import { cnpgClusterRefusals } from './cnpg-webhook-rules';
import { diffFields, FieldChange, formatPath, pathUnder, PathSegment } from './object-diff';
import {
  apiVersionOf, describeObject, FILE_KIND, HELM_RELEASE_KIND, isObject, ObjectIdentity, ReviewObject, reviewObjects, ReviewTree,
} from './review-objects';

/** What a change risks. One change may carry several. */
export type RiskClass = 'breaks-apply' | 'destroys-data' | 'needs-runbook' | 'moves-pin';

/** The classes that make a review risky (the exit status says so); a pin move alone is information. */
export const RISKY_CLASSES: readonly RiskClass[] = ['breaks-apply', 'destroys-data', 'needs-runbook'];

/** One judgement about a change: its class, why, and the field and versions when there are some. */
export interface Finding {
  readonly class: RiskClass;
  readonly message: string;
  readonly field?: string;
  /** Pin moves: the version before and after. */
  readonly from?: string;
  readonly to?: string;
  /** Where the rule comes from (the API server or webhook source that enforces it). */
  readonly source?: string;
}

/** One object that differs between the base and the head. */
export interface ObjectChange {
  readonly change: 'added' | 'removed' | 'changed';
  readonly id: ObjectIdentity;
  readonly file: string;
  /** The bootstrap step (`06-forgejo`) when the runbook applies the object. */
  readonly step?: string;
  /** The Argo CD Application that delivers the object (an Application: itself), and its sync wave. */
  readonly application?: string;
  readonly wave?: number;
  readonly fields: readonly FieldChange[];
  readonly findings: readonly Finding[];
}

/** The review of a pull request's output: every changed object, and the bootstrap steps to re-run. */
export interface Review {
  readonly changes: readonly ObjectChange[];
  /** Bootstrap steps whose objects changed, as numbered in the head (or the base, for a removed step). */
  readonly runbookSteps: readonly string[];
}

/** Whether any change of `review` is risky. */
export function isRisky(review: Review): boolean {
  return review.changes.some((c) => c.findings.some((f) => RISKY_CLASSES.includes(f.class)));
}

const WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';

/**
 * Compares two synthesized trees object by object and classifies each change. `base` is the committed output
 * (the merge base), `head` a fresh synthesis. `crdFields` are the CRD fields frozen by CEL rules.
 */
export function reviewTrees(base: ReviewTree, head: ReviewTree, crdFields: readonly CrdImmutableField[] = pinnedCrdImmutableFields()): Review {
  const [before, after] = [reviewObjects(base), reviewObjects(head)];
  const apps = applicationsOf([...after.values(), ...before.values()]);
  const recreatedJobs = new Set([...(head.get('bootstrap/bootstrap.sh') ?? '').matchAll(/^delete_job (\S+) (\S+)$/gm)].map((m) => `${m[1]}/${m[2]}`));
  const changes: ObjectChange[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])]) {
    const [a, b] = [before.get(key), after.get(key)];
    const o = (b ?? a)!;
    if (a !== undefined && b !== undefined && diffFields(a.body, b.body).length === 0) continue;
    const change: ObjectChange['change'] = a === undefined ? 'added' : b === undefined ? 'removed' : 'changed';
    const fields = a !== undefined && b !== undefined ? diffFields(a.body, b.body) : [];
    const owner = ownerOf(o, apps);
    const findings = [
      ...(change === 'changed' ? immutableFindings(a!, b!, fields, crdFields, recreatedJobs) : []),
      ...dataFindings(change, a, b, fields),
      ...pinFindings(a, b, fields),
      ...(o.key.startsWith('bootstrap') ? [runbookFinding(change, o)] : []),
    ];
    changes.push({ change, id: o.id, file: o.file, ...(o.step ? { step: o.step } : {}), ...owner, fields, findings: dedupe(findings) });
  }
  for (const c of changes) addRenameHints(c, changes);
  const order = (c: ObjectChange) => [c.step ?? '~', String(c.wave ?? 99).padStart(3, '0'), c.application ?? '', c.id.kind, c.id.namespace, c.id.name, c.file].join('\u0000');
  changes.sort((x, y) => (order(x) < order(y) ? -1 : order(x) > order(y) ? 1 : 0));
  const runbookSteps = [...new Set(changes.filter((c) => c.findings.some((f) => f.class === 'needs-runbook')).map((c) => c.step ?? 'bootstrap.sh'))].sort();
  return { changes, runbookSteps };
}

/** An Application of either side: its name, wave, the dist folders its git sources read, and whether it prunes. */
interface AppInfo { readonly name: string; readonly wave: number; readonly paths: readonly { path: string; recurse: boolean }[] }

function applicationsOf(objects: readonly ReviewObject[]): Map<string, AppInfo> {
  const apps = new Map<string, AppInfo>();
  for (const o of objects) {
    if (o.id.kind !== 'Application' || o.id.group !== 'argoproj.io' || o.key.startsWith('argocd-seed') || apps.has(o.id.name)) continue;
    apps.set(o.id.name, { name: o.id.name, wave: waveOf(o.body), paths: sourcesOf(o.body).filter((s) => typeof s.path === 'string')
      .map((s) => ({ path: s.path, recurse: s.directory?.recurse === true })) });
  }
  return apps;
}

function waveOf(app: any): number {
  const wave = Number(app?.metadata?.annotations?.[WAVE_ANNOTATION] ?? 0);
  return Number.isFinite(wave) ? wave : 0;
}

function sourcesOf(app: any): any[] {
  return [...(isObject(app?.spec?.source) ? [app.spec.source] : []), ...(Array.isArray(app?.spec?.sources) ? app.spec.sources : [])];
}

/**
 * The Application that delivers `o`: an Application is grouped under itself (its own wave); any other object of the
 * Argo CD tree under the Application whose git source path is the object's folder (with the repository's dist
 * prefix, `k8s/generated/data-schemas` for `data-schemas/`), or one of its parents with `directory.recurse`.
 */
function ownerOf(o: ReviewObject, apps: Map<string, AppInfo>): { application?: string; wave?: number } {
  if (o.key.startsWith('bootstrap')) return {};
  if (o.id.kind === 'Application' && o.id.group === 'argoproj.io') return { application: o.id.name, wave: waveOf(o.body) };
  const dir = path.posix.dirname(o.file);
  const reads = (p: string, d: string) => p === d || p.endsWith(`/${d}`);
  for (const app of [...apps.values()].sort((x, y) => (x.name < y.name ? -1 : 1))) {
    for (const s of app.paths) {
      if (reads(s.path, dir)) return { application: app.name, wave: app.wave };
      for (let d = path.posix.dirname(dir); s.recurse && d !== '.'; d = path.posix.dirname(d)) if (reads(s.path, d)) return { application: app.name, wave: app.wave };
    }
  }
  return {};
}

/** Fields the API server (IMMUTABLE_FIELDS), a CRD's CEL rules or CNPG's webhook refuse to change. */
function immutableFindings(a: ReviewObject, b: ReviewObject, fields: readonly FieldChange[], crdFields: readonly CrdImmutableField[],
  recreatedJobs: ReadonlySet<string>): Finding[] {
  const found: Finding[] = [];
  const apiVersion = apiVersionOf(b.id);
  const jobRecreated = b.id.kind === 'Job' && (recreatedJobs.has(`${b.id.namespace}/${b.id.name}`)
    || /(^|,)\s*Replace=true/.test(String(b.body?.metadata?.annotations?.['argocd.argoproj.io/sync-options'] ?? '')));
  for (const rule of IMMUTABLE_FIELDS) {
    if (rule.apiVersion !== apiVersion || rule.kind !== b.id.kind) continue;
    const hit = fields.filter((f) => pathUnder(f.path, rule.path));
    if (hit.length === 0) continue;
    if (jobRecreated) continue; // the runbook deletes the Job first (delete_job), Argo CD replaces it (Replace=true)
    if (rule.rule === 'immutable-when-marked' && a.body?.immutable !== true) continue;
    if (rule.rule === 'no-shrink') {
      const [qa, qb] = [quantityAt(a.body, rule.path), quantityAt(b.body, rule.path)];
      if (!(qa && qb && compareQuantities(qa, qb) > 0)) continue;
      found.push({ class: 'breaks-apply', field: rule.path, source: rule.source,
        message: `${rule.path} shrinks from ${qa.text} to ${qb.text}: the API server refuses it (${rule.message})` });
      continue;
    }
    found.push({ class: 'breaks-apply', field: rule.path, source: rule.source,
      message: `${rule.path} is immutable${rule.rule === 'immutable-when-marked' ? ' on an object marked immutable' : ''}: the API server refuses the change (${rule.message}); ` +
        'delete and re-create the object' });
  }
  for (const rule of crdFields) {
    if (rule.group !== b.id.group || rule.kind !== b.id.kind || rule.version !== b.id.version) continue;
    if (fields.some((f) => pathUnder(f.path, rule.path))) {
      found.push({ class: 'breaks-apply', field: rule.path, source: `the ${rule.kind} CRD's CEL rule`, message: `${rule.path} is immutable: ${rule.message}` });
    }
  }
  if (b.id.group === 'postgresql.cnpg.io' && b.id.kind === 'Cluster') {
    for (const r of cnpgClusterRefusals(a.body, b.body)) {
      found.push({ class: 'breaks-apply', field: r.field, source: r.source, message: `CNPG's webhook refuses it: ${r.message}` });
      if (r.shrinks) found.push({ class: 'destroys-data', field: r.field, message: `${r.field} shrinks: a smaller volume is a new volume, without the data` });
    }
  }
  return found;
}

function quantityAt(body: any, dotted: string) {
  let v = body;
  for (const k of dotted.split('.')) v = isObject(v) ? v[k] : undefined;
  return typeof v === 'string' || typeof v === 'number' ? parseQuantity(v) : undefined;
}

/** Removals and changes that lose data: volumes, databases, reclaim policies, pruning Applications. */
function dataFindings(change: ObjectChange['change'], a: ReviewObject | undefined, b: ReviewObject | undefined, fields: readonly FieldChange[]): Finding[] {
  const o = (a ?? b)!;
  const { group, kind } = o.id;
  const found: Finding[] = [];
  if (change === 'removed') {
    if (group === '' && kind === 'PersistentVolumeClaim') {
      found.push({ class: 'destroys-data', message: 'the claim is deleted, and with the default reclaim policy (Delete) its volume and data' });
    }
    if (group === 'postgresql.cnpg.io' && kind === 'Cluster') {
      found.push({ class: 'destroys-data', message: 'CNPG deletes the cluster\'s instances and their volumes: every database in it' });
    }
    // The CRD's default is retain (postgresql.cnpg.io_databases.yaml, databaseReclaimPolicy: default: retain).
    if (group === 'postgresql.cnpg.io' && kind === 'Database' && a!.body?.spec?.databaseReclaimPolicy === 'delete') {
      found.push({ class: 'destroys-data', message: 'databaseReclaimPolicy is delete: CNPG drops the database' });
    }
    if (group === 'argoproj.io' && kind === 'Application' && !o.key.startsWith('argocd-seed')) {
      const prunes = a!.body?.spec?.syncPolicy?.automated?.prune === true;
      found.push({ class: 'destroys-data', message: prunes
        ? 'the root app prunes the Application, and Argo CD deletes everything it managed (automated sync with prune: true)'
        : 'the root app prunes the Application; what it managed is deleted when it has the resources finalizer, else orphaned' });
    }
    return found;
  }
  if (change !== 'changed') return found;
  for (const f of fields) {
    const last = f.path[f.path.length - 1];
    if ((last === 'databaseReclaimPolicy' && f.new === 'delete') || ((last === 'reclaimPolicy' || last === 'persistentVolumeReclaimPolicy') && f.new === 'Delete')) {
      found.push({ class: 'destroys-data', field: formatPath(f.path), message: `${formatPath(f.path)} becomes ${String(f.new)}: removing the object later deletes its data` });
    }
  }
  if (group === '' && kind === 'PersistentVolumeClaim') {
    const [qa, qb] = [quantityAt(a!.body, 'spec.resources.requests.storage'), quantityAt(b!.body, 'spec.resources.requests.storage')];
    if (qa && qb && compareQuantities(qa, qb) > 0) {
      found.push({ class: 'destroys-data', field: 'spec.resources.requests.storage',
        message: `the volume shrinks from ${qa.text} to ${qb.text}: only a new claim is smaller, and a new claim starts empty` });
    }
  }
  if (group === 'argoproj.io' && kind === 'Application' && a!.body?.spec?.syncPolicy?.automated?.prune === true) {
    const moved = fields.filter((f) => (f.path[0] === 'spec' && (f.path[1] === 'source' || f.path[1] === 'sources'))
      && ['path', 'chart', 'repoURL'].includes(String(f.path[f.path.length - 1])) && f.old !== undefined);
    for (const f of moved) {
      found.push({ class: 'destroys-data', field: formatPath(f.path),
        message: `${formatPath(f.path)} of an auto-pruning Application moves from ${String(f.old)} to ${String(f.new)}: Argo CD deletes what the old source defined and the new one does not` });
    }
  }
  return found;
}

/** Moved pins: images, Helm charts, remote manifests with a version. */
function pinFindings(a: ReviewObject | undefined, b: ReviewObject | undefined, fields: readonly FieldChange[]): Finding[] {
  if (a === undefined || b === undefined) return [];
  const found: Finding[] = [];
  for (const f of fields) {
    const last = f.path[f.path.length - 1];
    const field = formatPath(f.path);
    if ((last === 'image' || last === 'imageName') && typeof f.old === 'string' && typeof f.new === 'string') {
      found.push({ class: 'moves-pin', field, from: imageVersion(f.old), to: imageVersion(f.new),
        message: `image ${imageRepo(f.new)}: ${imageVersion(f.old)} → ${imageVersion(f.new)}` });
    }
    if (last === 'targetRevision' && typeof f.old === 'string' && typeof f.new === 'string') {
      const source = valueAt(b.body, f.path.slice(0, -1));
      if (isObject(source) && typeof source.chart === 'string') {
        found.push({ class: 'moves-pin', field, from: f.old, to: f.new, message: `chart ${source.chart} (${source.repoURL}): ${f.old} → ${f.new}` });
      }
    }
    if (b.id.kind === HELM_RELEASE_KIND && last === 'version') {
      found.push({ class: 'moves-pin', field, from: String(f.old), to: String(f.new), message: `chart ${b.body.chart} (${b.body.repo}): ${String(f.old)} → ${String(f.new)}` });
    }
  }
  if (b.id.kind === 'Kustomization') {
    const remote = (o: ReviewObject) => (Array.isArray(o.body?.resources) ? o.body.resources : []).filter((r: unknown) => typeof r === 'string' && /^https?:\/\//.test(r));
    const [was, now] = [remote(a), remote(b)];
    for (const url of now.filter((u: string) => !was.includes(u))) {
      const old = was.find((u: string) => !now.includes(u) && versionless(u) === versionless(url));
      if (old !== undefined) {
        found.push({ class: 'moves-pin', field: 'resources', from: urlVersion(old), to: urlVersion(url),
          message: `remote manifest ${path.posix.basename(url)}: ${urlVersion(old)} → ${urlVersion(url)} (${url}); its CRDs move with it` });
      }
    }
  }
  return found;
}

const URL_VERSION = /v?\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.-]+)?/g;
const versionless = (url: string) => url.replace(URL_VERSION, '*');
const urlVersion = (url: string) => (url.match(URL_VERSION) ?? [url])[0];
const imageRepo = (image: string) => image.replace(/(@sha256:[0-9a-f]+|:[^/:@]+)+$/, '');
const imageVersion = (image: string) => image.slice(imageRepo(image).length).replace(/^[:@]/, '') || 'latest';

function valueAt(body: any, p: readonly PathSegment[]): unknown {
  let v = body;
  for (const s of p) {
    if (typeof s === 'object') v = Array.isArray(v) ? v.find((i) => i?.name === s.name) : undefined;
    else v = v?.[s as keyof typeof v];
  }
  return v;
}

function runbookFinding(change: ObjectChange['change'], o: ReviewObject): Finding {
  const where = o.step ?? 'the runbook';
  if (o.id.kind === FILE_KIND && o.file === 'bootstrap/bootstrap.sh') {
    return { class: 'needs-runbook', message: 'the runbook itself changed: run dist/bootstrap/bootstrap.sh (finished steps pass at once)' };
  }
  return { class: 'needs-runbook', message: change === 'removed'
    ? `removed from Phase 0 (${where}): the runbook applies, it never deletes; delete it by hand if it must go`
    : `Phase 0 (${where}): Argo CD never applies it; re-run the runbook from this step` };
}

/** A removed object next to an added one of the same kind and namespace: a rename, which is a delete and a create. */
function addRenameHints(c: ObjectChange, all: readonly ObjectChange[]): void {
  if (c.change !== 'removed' || c.id.kind === FILE_KIND) return;
  const added = all.filter((x) => x.change === 'added' && x.id.kind === c.id.kind && x.id.group === c.id.group
    && x.id.namespace === c.id.namespace && x.step === c.step);
  if (added.length !== 1 || !c.findings.some((f) => f.class === 'destroys-data')) return;
  (c.findings as Finding[]).push({ class: 'destroys-data',
    message: `renamed to ${describeObject(added[0].id)}? A rename is a delete and a create: the new one starts empty` });
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => !seen.has(`${f.class}|${f.message}`) && !!seen.add(`${f.class}|${f.message}`));
}

interface CrdSchemaFile { readonly kinds: Record<string, { readonly schema: unknown }> }

let pinned: CrdImmutableField[] | undefined;

/**
 * The CEL-frozen fields of the pinned CRDs, derived by `crdImmutableFields()` from the generated `schemas/crds.json`
 * (scripts/generate-schemas.js keeps each CRD's `x-kubernetes-validations`). Read on first use.
 */
export function pinnedCrdImmutableFields(): CrdImmutableField[] {
  if (pinned === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const file = require('../../schemas/crds.json') as CrdSchemaFile;
    pinned = Object.entries(file.kinds).flatMap(([gvk, { schema }]) => {
      const [group, version, kind] = gvk.split('/');
      return crdImmutableFields({ spec: { group, names: { kind }, versions: [{ name: version, schema: { openAPIV3Schema: schema } }] } });
    });
  }
  return pinned;
}

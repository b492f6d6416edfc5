import { DELIVERY_DIST } from '../shared/delivery-layout';
import { chartRepoUrl } from '../constructs/argocd/application-source';
import { ArgoCdChart } from '../homelab/argocd-chart';
import { PlacedStep } from '../output/render-steps';
import { OutputFile } from '../output/output-tree';
import { ARGOCD_DIST } from '../shared/dist-layout';
import { ARGOCD_INSTALL_URL, BARMAN_CLOUD_PLUGIN_MANIFEST_URL, CNPG_MANIFEST_URL } from '../shared/pins';
import { LifecycleEntry, lifecycleOf, LifecycleStatus, LifecycleSubject, UNMAINTAINED_STATUSES } from '../shared/lifecycle';

/**
 * The pins inventory: every pinned version the synthesized homelab deploys, collected from the output and the
 * constructs, never typed a second time. Container images are read from every pod template of every output file (and
 * CNPG's `imageName`), Helm charts from the Phase-0 Helm releases and every Application's Helm sources, release
 * manifests from the pinned URLs the steps apply, CRD snapshots from the kinds of the output objects (the snapshot each
 * kind's schema was generated from, `schemas/crds.json`). Each carries its lifecycle from `lib/shared/lifecycle.ts`.
 */

/** What a pin is. */
export type PinKind = 'image' | 'chart' | 'manifest' | 'CRD';

/** A pin's lifecycle as the inventory shows it: `unknown` when the lifecycle table has no entry. */
export type PinLifecycle =
  | { readonly status: 'unknown' }
  | ({ readonly status: LifecycleStatus } & Omit<LifecycleEntry, 'status' | 'subjects' | 'versionPrefix'>);

/** One pinned version and where the homelab uses it. */
export interface PlannedPin {
  /** The image repository, `<chart> (<repo>)`, or the upstream project and what of it. */
  readonly component: string;
  readonly kind: PinKind;
  readonly version: string;
  /** `step NN-name` (a Phase-0 step), `app <name>` (an Argo CD Application), or the output file; steps first. */
  readonly usedBy: readonly string[];
  readonly lifecycle: PinLifecycle;
}

/** What `planPins()` reads. */
export interface PinsInput {
  /** The Phase-0 steps in apply order (`placeSteps()`). */
  readonly steps: readonly PlacedStep[];
  readonly argocd: ArgoCdChart;
  /** Every output file, keyed by its path relative to `dist/`. */
  readonly files: ReadonlyMap<string, OutputFile>;
}

/** The release manifests the program pins (lib/shared/pins.ts); kustomizations may reference others, found too. */
const PINNED_MANIFESTS = [CNPG_MANIFEST_URL, BARMAN_CLOUD_PLUGIN_MANIFEST_URL, ARGOCD_INSTALL_URL];

interface CrdKindInfo {
  readonly sourceUrl?: string;
  readonly sourceVersion?: string;
}

let crdKinds: Readonly<Record<string, CrdKindInfo>> | undefined;

/** The generated CRD schemas (`schemas/crds.json`): which pinned snapshot each `apiVersion/kind` comes from. */
function crdSources(): Readonly<Record<string, CrdKindInfo>> {
  // require() keeps the large JSON out of the type checker; validation has usually loaded it already.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  crdKinds ??= (require('../../schemas/crds.json') as { kinds: Record<string, CrdKindInfo> }).kinds;
  return crdKinds;
}

/** Builds the inventory, sorted by kind (image, chart, manifest, CRD), component and version. */
export function planPins(input: PinsInput): PlannedPin[] {
  const { steps: placed, argocd, files } = input;
  const stepOfFolder = new Map(placed.map((p) => [p.fileName, `step ${p.fileName.replace(/\.yaml$/, '')}`]));
  const gitApps = [argocd.root, ...argocd.applications.values()].flatMap((app) =>
    app.sources.flatMap((s) => (s.kind === 'git-path' || s.kind === 'plugin' ? [{ app: app.name, path: s.path }] : [])));

  /** Who uses a file of the output: its Phase-0 step, the Applications whose paths hold it, or the file itself. */
  const usersOf = (file: string): string[] => {
    if (file.startsWith('bootstrap/')) {
      const step = stepOfFolder.get(file.split('/')[1]);
      return [step ?? 'the runbook'];
    }
    const repoPath = argocd.repo.distFile(file);
    const apps = gitApps.filter((g) => repoPath === g.path || repoPath.startsWith(`${g.path}/`)).map((g) => `app ${g.app}`);
    return apps.length > 0 ? apps : [`dist/${file}`];
  };

  const rows = new Map<string, { component: string; kind: PinKind; version: string; subject: LifecycleSubject; usedBy: Set<string> }>();
  const add = (kind: PinKind, component: string, version: string, subject: LifecycleSubject, users: readonly string[]) => {
    const key = `${kind}\0${component}\0${version}`;
    const row = rows.get(key) ?? { component, kind, version, subject, usedBy: new Set<string>() };
    users.forEach((u) => row.usedBy.add(u));
    rows.set(key, row);
  };

  // Images and CRD kinds: every document of every file.
  const crds = crdSources();
  const crdKindsBySnapshot = new Map<string, Set<string>>();
  for (const [file, content] of files) {
    // The seed apps are copies of argocd/apps for a rebuild after the cutover: the same pins.
    if (typeof content === 'string' || file.startsWith(`${ARGOCD_DIST.seedApps}/`)) continue;
    const users = usersOf(file);
    for (const doc of content) {
      // An ImageUpdater's `imageName` is an image it watches (with the followed tag or a semver range), not one it runs.
      const kind = (doc as { kind?: unknown } | null)?.kind;
      // The app tier's own workloads (apps/<app>/) run the homelab's images, which the updater moves, not Renovate.
      const appImage = file.startsWith(`${DELIVERY_DIST.apps}/`) && (kind === 'Rollout' || kind === 'Deployment');
      const watchOnly = kind === 'ImageUpdater' || appImage;
      for (const ref of watchOnly ? [] : imagesIn(doc)) {
        const { repository, version } = splitImage(ref);
        add('image', repository, version, { kind: 'image', repository }, users);
      }
      const id = objectKind(doc);
      const crd = id ? crds[id.key] : undefined;
      if (id && crd?.sourceUrl !== undefined) {
        const { project, version } = fromUrl(crd.sourceUrl, crd.sourceVersion);
        const component = `${project} CRDs`;
        add('CRD', component, version, { kind: 'project', project }, users);
        const snapshot = `${component}\0${version}`;
        crdKindsBySnapshot.set(snapshot, (crdKindsBySnapshot.get(snapshot) ?? new Set()).add(id.kind));
      }
    }
  }

  // Helm charts: the Phase-0 releases, then every Application's Helm sources.
  for (const p of placed) {
    const r = p.step.helmRelease;
    if (r) add('chart', `${r.chart} (${r.repoURL})`, r.version, { kind: 'chart', repoURL: r.repoURL, chart: r.chart }, [stepOfFolder.get(p.fileName)!]);
  }
  for (const app of argocd.applications.values()) {
    for (const s of app.sources) {
      if (s.kind !== 'helm-chart') continue;
      add('chart', `${s.chart} (${chartRepoUrl(s)})`, s.version, { kind: 'chart', repoURL: s.repoURL, chart: s.chart }, [`app ${app.name}`]);
    }
  }

  // Release manifests: the pinned URLs and any remote resource of a kustomization, where a step's files name them.
  const remote = new Set(PINNED_MANIFESTS);
  for (const content of files.values()) {
    if (typeof content === 'string') continue;
    for (const doc of content) {
      const resources = (doc as { kind?: unknown; resources?: unknown }).kind === 'Kustomization' ? (doc as { resources?: unknown }).resources : undefined;
      if (Array.isArray(resources)) resources.filter((r): r is string => typeof r === 'string' && /^https?:\/\//.test(r)).forEach((r) => remote.add(r));
    }
  }
  const texts = [...files].map(([file, content]) => [file, typeof content === 'string' ? content : JSON.stringify(content)] as const);
  for (const url of remote) {
    // The runbook names every step's URL (it downloads and verifies them), so it counts only for a URL no step applies.
    const found = [...new Set(texts.filter(([, text]) => text.includes(url)).flatMap(([file]) => usersOf(file)))];
    const users = found.some((u) => u.startsWith('step ')) ? found.filter((u) => u !== 'the runbook') : found;
    const { project, version } = fromUrl(url);
    add('manifest', `${project} ${url.replace(/^.*\//, '')}`, version, { kind: 'project', project }, users.length > 0 ? users : ['not in this output']);
  }

  const kindRank: Record<PinKind, number> = { image: 0, chart: 1, manifest: 2, CRD: 3 };
  return [...rows.values()]
    .map((r): PlannedPin => {
      const kinds = r.kind === 'CRD' ? crdKindsBySnapshot.get(`${r.component}\0${r.version}`) : undefined;
      const entry = lifecycleOf(r.subject, r.version);
      return {
        component: kinds ? `${r.component} (${[...kinds].sort().join(', ')})` : r.component,
        kind: r.kind,
        version: r.version,
        usedBy: [...r.usedBy].sort(byUse),
        lifecycle: entry
          ? { component: entry.component, status: entry.status, since: entry.since, source: entry.source,
            ...(entry.notes !== undefined ? { notes: entry.notes } : {}),
            ...(entry.replacement !== undefined ? { replacement: entry.replacement } : {}) }
          : { status: 'unknown' },
      };
    })
    .sort((a, b) => kindRank[a.kind] - kindRank[b.kind] || compare(a.component, b.component) || compare(a.version, b.version));
}

/**
 * One warning per pin past its end of life, retired or archived: what it is, who uses it, since when and by which
 * source, and what replaces it.
 */
export function lifecycleWarnings(pins: readonly PlannedPin[]): string[] {
  return pins.flatMap((p) => {
    const l = p.lifecycle;
    if (l.status === 'unknown' || !UNMAINTAINED_STATUSES.has(l.status)) return [];
    return [`${p.kind} ${p.component} ${p.version} (${p.usedBy.join(', ')}) is ${l.status} since ${l.since} (${l.source}): ` +
      `no more releases or security fixes${l.replacement !== undefined ? `; move to ${l.replacement}` : ''}.`];
  });
}

/** Steps first (in apply order: their names start with the number), then Applications, then anything else. */
function byUse(a: string, b: string): number {
  const rank = (u: string) => (u.startsWith('step ') ? 0 : u.startsWith('app ') ? 1 : 2);
  return rank(a) - rank(b) || compare(a, b);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every container image (and CNPG `imageName`) anywhere in `value`: pod templates of any workload, at any depth. */
export function imagesIn(value: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach(walk);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
      const list = o[key];
      if (Array.isArray(list)) {
        for (const c of list) {
          const image = (c as { image?: unknown } | null)?.image;
          if (typeof image === 'string') found.push(image);
        }
      }
    }
    if (typeof o.imageName === 'string') found.push(o.imageName);
    Object.values(o).forEach(walk);
  };
  walk(value);
  return found;
}

/** An image reference split into its repository and its tag (with the digest, shortened, when there is one). */
export function splitImage(ref: string): { repository: string; version: string } {
  const at = ref.indexOf('@');
  const name = at >= 0 ? ref.slice(0, at) : ref;
  const digest = at >= 0 ? ref.slice(at + 1) : undefined;
  const colon = name.lastIndexOf(':');
  const hasTag = colon > name.lastIndexOf('/');
  const repository = hasTag ? name.slice(0, colon) : name;
  const tag = hasTag ? name.slice(colon + 1) : undefined;
  const short = digest !== undefined ? digest.slice(0, 'sha256:'.length + 12) : undefined;
  return { repository, version: [tag, short].filter((x) => x !== undefined).join('@') || '(no tag)' };
}

/** `apiVersion/kind` of a manifest document, or undefined for other documents (values files). */
function objectKind(doc: unknown): { key: string; kind: string } | undefined {
  const o = doc as { apiVersion?: unknown; kind?: unknown } | null;
  return typeof o?.apiVersion === 'string' && typeof o.kind === 'string' ? { key: `${o.apiVersion}/${o.kind}`, kind: o.kind } : undefined;
}

/**
 * The GitHub project and version of an upstream URL: a release asset (`github.com/<o>/<r>/releases/download/<tag>/…`) or a
 * file at a tag (`raw.githubusercontent.com/<o>/<r>/<tag>/…`); otherwise the URL's host and the version in `described`
 * (e.g. `CNPG v1.30.0 (…)`) or in the URL.
 */
export function fromUrl(url: string, described?: string): { project: string; version: string } {
  const release = /^https:\/\/github\.com\/([^/]+\/[^/]+)\/releases\/download\/([^/]+)\//.exec(url);
  if (release) return { project: release[1], version: release[2] };
  const raw = /^https:\/\/raw\.githubusercontent\.com\/([^/]+\/[^/]+)\/([^/]+)\//.exec(url);
  if (raw) return { project: raw[1], version: raw[2] };
  const version = /\bv?\d+\.\d+\.\d+[\w.-]*/.exec(described ?? url)?.[0] ?? '(in the URL)';
  return { project: url.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, ''), version };
}

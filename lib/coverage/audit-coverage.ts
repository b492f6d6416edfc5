import * as path from 'path';
import { ARGOCD_DIST } from '../shared/dist-layout';
import { DELIVERY_DIST } from '../shared/delivery-layout';
import { argoGlobMatch } from './argo-glob';
import { CoverageModel, CoverageSource, isInside, SOPS_ENCRYPTED_SUFFIX } from './coverage-model';
import { compare, RepoDirectory, RepoFile, RepoTree } from './repo-tree';

/** A manifest, Helm chart or directory of manifests that no Application reconciles. */
export interface OrphanFinding {
  /** Repo-relative directory or file. */
  readonly path: string;
  /** A whole directory nothing reaches, or one manifest in a directory that is otherwise rendered. */
  readonly type: 'directory' | 'file';
  /** Number of manifest files (0 for a Helm chart directory). */
  readonly manifests: number;
  /** Kinds found, sorted, without duplicates. */
  readonly kinds: readonly string[];
  readonly message: string;
}

/** Why two Applications collide. */
export type DuplicateReason = 'same-path' | 'nested-in-recursive' | 'overlapping-manifests';

/** A directory more than one Application renders. */
export interface DuplicateFinding {
  readonly path: string;
  readonly reason: DuplicateReason;
  /** The Applications involved, sorted. */
  readonly applications: readonly string[];
  readonly message: string;
}

/** What kind of path is missing. */
export type MissingType = 'path' | 'values-file' | 'kustomization-resource';

/** A path an Application reads that is not in the tree. */
export interface MissingFinding {
  readonly path: string;
  readonly type: MissingType;
  /** The Applications that read it, sorted. */
  readonly applications: readonly string[];
  /** Config field that names it (Application paths and values files only). */
  readonly configPath?: string;
  /** The kustomization that lists it (kustomization resources only). */
  readonly referencedBy?: string;
  /** Under `git.distPath`: this program generates it, and it exists once the synthesized dist/ is committed. */
  readonly generated: boolean;
  readonly message: string;
}

/** A kustomization that no Application reaches. */
export interface DeadAggregatorFinding {
  /** Repo-relative kustomization file. */
  readonly path: string;
  readonly message: string;
}

/** Application or ApplicationSet manifests outside the generated `argocd/` folder. */
export interface AppOfAppsFinding {
  readonly path: string;
  /** `<kind> '<name>'` of each document, in file order. */
  readonly documents: readonly string[];
  /** Applications that apply the file (it is a live second app-of-apps), sorted; empty when it is stale. */
  readonly appliedBy: readonly string[];
  readonly message: string;
}

/** An encrypted file the `sops-secrets` Application never applies. */
export interface UnmatchedSecretFinding {
  readonly path: string;
  /** Named other than `*.enc.yaml`, or outside every path of the sops plugin source. */
  readonly reason: 'name' | 'outside-path';
  readonly message: string;
}

/** The audit's result: each list sorted by path. */
export interface CoverageReport {
  /** Absolute path of the audited checkout. */
  readonly repo: string;
  /** Number of Applications, the root app-of-apps included. */
  readonly applications: number;
  /** Number of files scanned. */
  readonly files: number;
  readonly orphans: readonly OrphanFinding[];
  readonly duplicates: readonly DuplicateFinding[];
  readonly missing: readonly MissingFinding[];
  readonly deadAggregators: readonly DeadAggregatorFinding[];
  readonly secondAppOfApps: readonly AppOfAppsFinding[];
  readonly unmatchedSecrets: readonly UnmatchedSecretFinding[];
}

/** Total number of findings in `report`. */
export function findingCount(report: CoverageReport): number {
  return report.orphans.length + report.duplicates.length + report.missing.length + report.deadAggregators.length
    + report.secondAppOfApps.length + report.unmatchedSecrets.length;
}

/** A `resources` entry of a reached kustomization that kustomize cannot load. */
interface BrokenResource {
  readonly kustomization: string;
  readonly entry: string;
  /** Repo-relative path the entry resolves to. */
  readonly target: string;
  /** The target is a directory without a kustomization file (otherwise it does not exist). */
  readonly directory: boolean;
  readonly apps: Set<string>;
}

/** How an Application comes to render a file. */
type How = 'source' | 'recursive' | 'kustomize' | 'sops';

interface Rendering {
  readonly app: string;
  readonly how: How;
  /** The kustomization that lists the file or its directory, for `kustomize`. */
  readonly via?: string;
}

/** Encrypted by name: `*.enc.yaml`, `*.enc.yml`, `*.sops.yaml`, `*.enc.json`, … (not the `.sops.yaml` config). */
const ENCRYPTED_NAME = /.\.(enc|sops)\.(ya?ml|json)$/;

/**
 * Compares the Applications of `model` with the checkout in `tree` and reports orphans, duplicates, missing
 * paths, dead aggregators, a second app-of-apps and encrypted files the sops plugin misses. Pure: reads only
 * its arguments.
 */
export function auditCoverage(model: CoverageModel, tree: RepoTree): CoverageReport {
  return new CoverageAudit(model, tree).report();
}

class CoverageAudit {
  private readonly renders = new Map<string, Rendering[]>();
  /** Files a reached kustomization reads without rendering them (patches, generator inputs, …). */
  private readonly used = new Set<string>();
  /** Directories an Application renders, as a source, recursively or as a kustomization, with those Applications. */
  private readonly reachedDirectories = new Map<string, Set<string>>();
  /** Kustomization files an Application builds, with those Applications. */
  private readonly reachedKustomizations = new Map<string, Set<string>>();
  /** Why a plain-directory source skips a manifest (its include/exclude globs). */
  private readonly skipReasons = new Map<string, string>();
  private readonly missing: MissingFinding[] = [];
  /** Kustomization resources that do not resolve, keyed by kustomization and entry. */
  private readonly brokenResources = new Map<string, BrokenResource>();
  private readonly generatedAreas: readonly string[];
  private readonly chartRoots = new Map<string, string | undefined>();

  constructor(private readonly model: CoverageModel, private readonly tree: RepoTree) {
    this.generatedAreas = model.distPath === '.'
      // dist/ at the repository root: only its own folders are generated.
      ? [...new Set(['bootstrap', ...[...Object.values(ARGOCD_DIST), ...Object.values(DELIVERY_DIST)].map((p) => p.split('/')[0])])].sort(compare)
      : [model.distPath];
  }

  public report(): CoverageReport {
    this.checkValuesFiles();
    for (const source of this.model.sources) this.renderSource(source);
    this.renderSecrets();
    for (const broken of this.brokenResources.values()) {
      const apps = [...broken.apps].sort(compare);
      const what = broken.directory ? 'a directory without a kustomization file' : 'which does not exist';
      // A delivery app's overlay lists a folder of the generated tree.
      const generated = this.isGenerated(broken.target);
      this.missing.push({
        path: broken.target,
        type: 'kustomization-resource',
        applications: apps,
        referencedBy: broken.kustomization,
        generated,
        message: `${broken.kustomization} lists '${broken.entry}' (${broken.target}), ${what}; kustomize build fails for ${quoteList(apps)}.`
          + this.generatedHint(generated),
      });
    }
    return {
      repo: this.tree.root,
      applications: this.model.applications.length,
      files: this.tree.files.size,
      orphans: this.orphans(),
      duplicates: [...this.pathDuplicates(), ...this.manifestDuplicates()]
        .sort((a, b) => compare(a.path, b.path) || compare(a.reason, b.reason) || compare(a.applications.join(), b.applications.join())),
      missing: this.missing
        .sort((a, b) => compare(a.path, b.path) || compare(a.type, b.type) || compare(a.applications.join(), b.applications.join())),
      deadAggregators: this.deadAggregators(),
      secondAppOfApps: this.secondAppOfApps(),
      unmatchedSecrets: this.unmatchedSecrets(),
    };
  }

  // ---- what the Applications render ------------------------------------------------------------------

  private checkValuesFiles(): void {
    for (const v of this.model.valuesFiles) {
      if (this.tree.files.has(v.path)) continue;
      const generated = this.isGenerated(v.path);
      const what = this.tree.directories.has(v.path) ? 'is a directory, not a file' : 'does not exist';
      this.missing.push({
        path: v.path,
        type: 'values-file',
        applications: [v.application],
        configPath: v.configPath,
        generated,
        message: `'${v.application}' reads the values file ${v.path} through $values (${v.configPath}), which ${what}; `
          + `the sync would fail.${this.generatedHint(generated)}`,
      });
    }
  }

  private renderSource(s: CoverageSource): void {
    const dir = this.tree.directories.get(s.path);
    if (!dir) {
      const generated = this.isGenerated(s.path);
      const what = this.tree.files.has(s.path) ? 'is a file, not a directory' : 'does not exist';
      this.missing.push({
        path: s.path,
        type: 'path',
        applications: [s.application],
        configPath: s.configPath,
        generated,
        message: `'${s.application}' reads ${s.path} (${s.configPath}), which ${what}; `
          + `Argo CD would fail with "app path does not exist".${this.generatedHint(generated)}${overlayHint(s)}`,
      });
      return;
    }
    // The sops plugin renders only the encrypted files; renderSecrets() covers them.
    if (this.isSopsSource(s)) return;
    if (s.pluginName) {
      this.reach(dir.path, s.application);
      for (const f of this.manifestsIn(dir)) this.render(f.path, { app: s.application, how: 'source' });
    } else if (dir.kustomization) {
      this.buildKustomization(s.application, dir.path);
      // Listed but absent (dist/ not committed) is already a broken kustomization resource.
      const lists = (this.tree.files.get(dir.kustomization)!.kustomization!.resources).some((e) => localTarget(dir.path, e) === s.overlayOf);
      const reached = s.overlayOf !== undefined && this.reachedDirectories.get(s.overlayOf)?.has(s.application);
      if (s.overlayOf !== undefined && !lists && !reached) this.overlayMisses(s, dir.kustomization);
    } else if (s.overlayOf !== undefined) {
      this.overlayMisses(s, undefined);
    } else if (dir.helmChart) {
      this.reach(dir.path, s.application);
    } else {
      this.renderDirectory(s, dir);
    }
  }

  /** A delivery app's overlay that does not build the generated folder: the app would run none of its generated manifests. */
  private overlayMisses(s: CoverageSource, kustomization: string | undefined): void {
    const what = kustomization === undefined ? `${s.path} has no kustomization` : `${kustomization} does not reach it`;
    this.missing.push({
      path: s.overlayOf!,
      type: 'kustomization-resource',
      applications: [s.application],
      referencedBy: kustomization ?? s.path,
      generated: true,
      message: `'${s.application}' reads its overlay ${s.path} (${s.configPath}), which must build the generated ${s.overlayOf}, but ${what}; `
        + `the app's generated manifests would never be applied.${overlayHint(s)}`,
    });
  }

  /** Argo CD's directory mode: the manifests of the path (and below, with `recurse`) that pass the globs. */
  private renderDirectory(s: CoverageSource, root: RepoDirectory): void {
    const dirs = s.recurse ? [...this.tree.directories.values()].filter((d) => isInside(d.path, root.path)) : [root];
    for (const dir of dirs) {
      this.reach(dir.path, s.application);
      for (const f of this.manifestsIn(dir)) {
        const rel = root.path === '.' ? f.path : f.path.slice(root.path.length + 1);
        if (s.exclude !== undefined && argoGlobMatch(s.exclude, rel)) {
          this.skip(f.path, `excluded by directory.exclude '${s.exclude}' of '${s.application}'`);
        } else if (s.include !== undefined && !argoGlobMatch(s.include, rel)) {
          this.skip(f.path, `not matched by directory.include '${s.include}' of '${s.application}'`);
        } else {
          this.render(f.path, { app: s.application, how: dir === root ? 'source' : 'recursive' });
        }
      }
    }
  }

  /** Follows the kustomization in `start` and every local directory its `resources` (transitively) name. */
  private buildKustomization(app: string, start: string): void {
    const queue: { dir: string; via?: string }[] = [{ dir: start }];
    const seen = new Set([start]);
    while (queue.length > 0) {
      const { dir, via } = queue.shift()!;
      const kustomization = this.tree.directories.get(dir)!.kustomization!;
      this.reach(dir, app);
      addTo(this.reachedKustomizations, kustomization, app);
      const refs = this.tree.files.get(kustomization)!.kustomization!;
      for (const entry of refs.resources) {
        const target = localTarget(dir, entry);
        if (target === undefined) continue;
        const targetDir = this.tree.directories.get(target);
        if (targetDir?.kustomization) {
          if (!seen.has(target)) {
            seen.add(target);
            queue.push({ dir: target, via: kustomization });
          }
        } else if (this.tree.files.has(target)) {
          // A file of the Application's own path is its source; anything else comes in through a kustomization.
          const own = dir === start && path.posix.dirname(target) === start;
          this.render(target, own ? { app, how: 'source' } : { app, how: 'kustomize', via: via ?? kustomization });
        } else if (targetDir || !looksRemote(entry)) {
          const key = `${kustomization}\n${entry}`;
          const broken = this.brokenResources.get(key)
            ?? { kustomization, entry, target, directory: targetDir !== undefined, apps: new Set<string>() };
          broken.apps.add(app);
          this.brokenResources.set(key, broken);
          // The missing finding explains a directory without a kustomization; its manifests are not orphans too.
          if (targetDir) for (const f of targetDir.files) this.used.add(f);
        }
      }
      // Everything else the kustomization names (patches, generator files, …) is read, not rendered.
      for (const s of refs.otherStrings) {
        for (const candidate of new Set([s, s.slice(s.indexOf('=') + 1)])) {
          const target = localTarget(dir, candidate);
          if (target !== undefined && this.tree.files.has(target)) this.used.add(target);
        }
      }
    }
  }

  private renderSecrets(): void {
    const roots = this.model.sopsPaths.filter((p) => this.tree.directories.has(p));
    for (const f of this.tree.files.values()) {
      if (f.name.endsWith(SOPS_ENCRYPTED_SUFFIX) && roots.some((p) => isInside(f.path, p))) {
        this.render(f.path, { app: this.model.sopsApplication, how: 'sops' });
      }
    }
  }

  // ---- findings ----------------------------------------------------------------------------------------

  private orphans(): OrphanFinding[] {
    const found: OrphanFinding[] = [];
    for (const dir of this.tree.directories.values()) {
      if (this.isExempt(dir.path) || this.isInsideChart(dir.path)) continue;
      const manifests = this.manifestsIn(dir).filter((f) => f.argoApplications.length === 0 && !looksEncrypted(f));
      const reached = this.reachedDirectories.has(dir.path)
        || dir.files.some((f) => this.used.has(f) || (this.renders.get(f) ?? []).some((r) => r.how !== 'sops'));
      if (!reached) {
        if (dir.helmChart) {
          const message = `${dir.path}: Helm chart that no Application reconciles.`;
          found.push({ path: dir.path, type: 'directory', manifests: 0, kinds: [], message });
        } else if (manifests.length > 0) {
          const kinds = sortedKinds(manifests);
          const n = manifests.length;
          found.push({
            path: dir.path, type: 'directory', manifests: n, kinds,
            message: `${dir.path}: ${n} manifest file${n === 1 ? '' : 's'}${kindList(kinds)} that no Application reconciles.`,
          });
        }
        continue;
      }
      if (dir.helmChart) continue;
      for (const f of manifests) {
        if (this.used.has(f.path) || (this.renders.get(f.path) ?? []).some((r) => r.how !== 'sops')) continue;
        const kinds = sortedKinds([f]);
        found.push({
          path: f.path, type: 'file', manifests: 1, kinds,
          message: `${f.path}${kindList(kinds)}: ${this.skipReasons.get(f.path) ?? this.unlistedReason(dir)}.`,
        });
      }
    }
    return found.sort((a, b) => compare(a.path, b.path));
  }

  private unlistedReason(dir: RepoDirectory): string {
    const apps = dir.kustomization ? this.reachedKustomizations.get(dir.kustomization) : undefined;
    if (dir.kustomization && apps) {
      const sorted = [...apps].sort(compare);
      return `not listed in ${dir.kustomization}, which ${quoteList(sorted)} render${sorted.length === 1 ? 's' : ''}`;
    }
    return `no kustomization that reaches ${dir.path} lists it`;
  }

  /** Two Applications with the same repo and path, or one path inside another Application's recursive source. */
  private pathDuplicates(): DuplicateFinding[] {
    const found: DuplicateFinding[] = [];
    const byPath = new Map<string, Set<string>>();
    for (const s of this.model.sources) addTo(byPath, s.path, s.application);
    for (const [p, apps] of byPath) {
      if (apps.size < 2) continue;
      const sorted = [...apps].sort(compare);
      found.push({
        path: p, reason: 'same-path', applications: sorted,
        message: `${p}: the source of ${sorted.length} Applications (${quoteList(sorted)}) in ${this.model.repoUrl}; `
          + 'keep exactly one Application per directory.',
      });
    }
    for (const outer of this.model.sources.filter((s) => s.recurse && !s.pluginName)) {
      for (const inner of this.model.sources) {
        if (inner.application === outer.application || inner.path === outer.path || !isInside(inner.path, outer.path)) continue;
        found.push({
          path: inner.path, reason: 'nested-in-recursive', applications: [outer.application, inner.application].sort(compare),
          message: `${inner.path}: the source of '${inner.application}', inside the recursive source ${outer.path} of `
            + `'${outer.application}'; both render its manifests. Exclude it from '${outer.application}' or drop one source.`,
        });
      }
    }
    return found;
  }

  /** Manifests two Applications render through a kustomization or the sops plugin (path checks miss these). */
  private manifestDuplicates(): DuplicateFinding[] {
    const groups = new Map<string, { dir: string; apps: string[]; count: number; how: Map<string, Rendering> }>();
    for (const [file, renderings] of this.renders) {
      const apps = [...new Set(renderings.map((r) => r.app))].sort(compare);
      if (apps.length < 2 || !renderings.some((r) => r.how === 'kustomize' || r.how === 'sops')) continue;
      const dir = path.posix.dirname(file);
      const key = `${dir}\n${apps.join()}`;
      const group = groups.get(key) ?? { dir, apps, count: 0, how: new Map(apps.map((a) => [a, renderings.find((r) => r.app === a)!])) };
      group.count++;
      groups.set(key, group);
    }
    return [...groups.values()].map((g) => ({
      path: g.dir, reason: 'overlapping-manifests' as const, applications: g.apps,
      message: `${g.dir}: ${g.count} manifest file${g.count === 1 ? '' : 's'} rendered by ${g.apps.length} Applications: `
        + `${g.apps.map((a) => `'${a}' (${describe(g.how.get(a)!)})`).join(', ')}; keep exactly one.`,
    }));
  }

  private deadAggregators(): DeadAggregatorFinding[] {
    const found: DeadAggregatorFinding[] = [];
    for (const dir of this.tree.directories.values()) {
      const k = dir.kustomization;
      if (!k || this.isExempt(dir.path) || this.isInsideChart(dir.path)) continue;
      if (this.reachedKustomizations.has(k) || this.reachedDirectories.has(dir.path)) continue;
      found.push({
        path: k,
        message: `${k}: no Application reaches it; its directory is no Application's source and no reached kustomization lists it.`,
      });
    }
    return found.sort((a, b) => compare(a.path, b.path));
  }

  private secondAppOfApps(): AppOfAppsFinding[] {
    const home = [path.posix.join(this.model.distPath, 'argocd'), path.posix.join(this.model.distPath, 'bootstrap')];
    const found: AppOfAppsFinding[] = [];
    for (const f of this.tree.files.values()) {
      if (f.argoApplications.length === 0 || this.isUnmanaged(f.path) || home.some((h) => isInside(f.path, h))) continue;
      const documents = f.argoApplications.map((d) => (d.name === undefined ? d.kind : `${d.kind} '${d.name}'`));
      const chart = this.chartRoot(f.dir);
      const appliedBy = [...new Set([
        ...(this.renders.get(f.path) ?? []).map((r) => r.app),
        ...(chart !== undefined ? this.reachedDirectories.get(chart) ?? [] : []),
      ])].sort(compare);
      const what = `${f.path}: ${documents.join(', ')} outside ${home[0]}`;
      found.push({
        path: f.path, documents, appliedBy,
        message: appliedBy.length > 0
          ? `${what}, applied by ${quoteList(appliedBy)}: a second app-of-apps. Move its Applications into argocd.applications.`
          : `${what}, applied by no Application: stale. Delete it, or move its Applications into argocd.applications.`,
      });
    }
    return found.sort((a, b) => compare(a.path, b.path));
  }

  private unmatchedSecrets(): UnmatchedSecretFinding[] {
    const roots = this.model.sopsPaths.filter((p) => this.tree.directories.has(p));
    const app = this.model.sopsApplication;
    const found: UnmatchedSecretFinding[] = [];
    for (const f of this.tree.files.values()) {
      if (!looksEncrypted(f) || this.isExempt(f.path)) continue;
      const named = f.name.endsWith(SOPS_ENCRYPTED_SUFFIX);
      if (named && roots.some((p) => isInside(f.path, p))) continue;
      if (!named) {
        const rename = /\.ya?ml$/.test(f.name) ? ` Rename it to ${f.name.replace(/(\.(enc|sops))?\.ya?ml$/, SOPS_ENCRYPTED_SUFFIX)}.` : '';
        found.push({
          path: f.path, reason: 'name',
          message: `${f.path}: encrypted, but '${app}' decrypts only files named *${SOPS_ENCRYPTED_SUFFIX}.${rename}`,
        });
      } else {
        const paths = this.model.sopsPaths.map((p) => `'${p}'`).join(', ');
        found.push({
          path: f.path, reason: 'outside-path',
          message: `${f.path}: outside ${paths}, where '${app}' finds *${SOPS_ENCRYPTED_SUFFIX} files; it is never applied.`,
        });
      }
    }
    return found.sort((a, b) => compare(a.path, b.path));
  }

  // ---- helpers -----------------------------------------------------------------------------------------

  private isSopsSource(s: CoverageSource): boolean {
    return s.application === this.model.sopsApplication && s.pluginName !== undefined;
  }

  private render(file: string, rendering: Rendering): void {
    const list = this.renders.get(file) ?? [];
    if (!list.some((r) => r.app === rendering.app)) list.push(rendering);
    this.renders.set(file, list);
  }

  private skip(file: string, reason: string): void {
    if (!this.skipReasons.has(file)) this.skipReasons.set(file, reason);
  }

  private reach(dir: string, app: string): void {
    addTo(this.reachedDirectories, dir, app);
  }

  private manifestsIn(dir: RepoDirectory): RepoFile[] {
    return dir.files.map((f) => this.tree.files.get(f)!).filter((f) => f.manifest);
  }

  private isGenerated(p: string): boolean {
    return this.generatedAreas.some((g) => isInside(p, g));
  }

  private generatedHint(generated: boolean): string {
    return generated ? ` It is generated: commit the synthesized dist/ to ${this.model.distPath}.` : '';
  }

  private isUnmanaged(p: string): boolean {
    return this.model.unmanaged.some((u) => isInside(p, u));
  }

  /** Unmanaged, generated by this program (Phase-0 material and the Argo CD tree), or replaced by a generated Application. */
  private isExempt(p: string): boolean {
    return this.isUnmanaged(p) || this.isGenerated(p) || (this.model.superseded ?? []).some((s) => isInside(p, s.path));
  }

  /** Strictly below a directory holding `Chart.yaml`: part of that chart. */
  private isInsideChart(dir: string): boolean {
    const root = this.chartRoot(dir);
    return root !== undefined && root !== dir;
  }

  private chartRoot(dir: string): string | undefined {
    if (this.chartRoots.has(dir)) return this.chartRoots.get(dir);
    const parent = dir === '.' ? undefined : this.chartRoot(path.posix.dirname(dir));
    const root = parent ?? (this.tree.directories.get(dir)?.helmChart ? dir : undefined);
    this.chartRoots.set(dir, root);
    return root;
  }
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key) ?? new Set<string>();
  set.add(value);
  map.set(key, set);
}

/** The repo-relative path a kustomization entry names, or undefined for a URL or a path outside the repo. */
function localTarget(dir: string, entry: string): string | undefined {
  if (entry.length === 0 || path.posix.isAbsolute(entry) || /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || entry.startsWith('git@')) return undefined;
  const target = path.posix.normalize(path.posix.join(dir, entry)).replace(/\/+$/, '');
  return target === '..' || target.startsWith('../') ? undefined : target;
}

/** kustomize's remote forms without a scheme: `github.com/org/repo//dir?ref=v1`. */
function looksRemote(entry: string): boolean {
  return entry.includes('?ref=') || entry.includes('?version=') || entry.includes('//') || /^[a-z0-9-]+(\.[a-z0-9-]+)+\/[^/]+\/[^/]+/i.test(entry);
}

function looksEncrypted(f: RepoFile): boolean {
  return f.sopsEncrypted || ENCRYPTED_NAME.test(f.name);
}

function sortedKinds(files: readonly RepoFile[]): string[] {
  return [...new Set(files.flatMap((f) => f.kinds))].sort(compare);
}

/** ` (Job, ServiceAccount)`, or nothing when no kind is known. */
function kindList(kinds: readonly string[]): string {
  return kinds.length > 0 ? ` (${kinds.join(', ')})` : '';
}

function quoteList(items: readonly string[]): string {
  return items.map((i) => `'${i}'`).join(', ');
}

function describe(r: Rendering): string {
  switch (r.how) {
    case 'source': return 'its source path';
    case 'recursive': return 'its recursive source';
    case 'kustomize': return `through ${r.via}`;
    case 'sops': return `*${SOPS_ENCRYPTED_SUFFIX} under its plugin path`;
  }
}

/** How to write a delivery app's overlay: the one-line kustomization the README documents. */
function overlayHint(s: CoverageSource): string {
  if (s.overlayOf === undefined) return '';
  return ` Write ${s.path}/kustomization.yaml with \`resources: [${path.posix.relative(s.path, s.overlayOf)}]\`.`;
}

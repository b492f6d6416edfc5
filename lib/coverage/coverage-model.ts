import type { ArgoCdChart } from '../homelab/argocd-chart';
import { GENERATED_APPLICATIONS } from '../shared/application-names';
import { VALUES_REF } from '../constructs/argocd/application-source';
import type { HomelabApplication } from '../constructs/argocd/homelab-application';
import { compare } from './repo-tree';

/**
 * Suffix of the files the `sops` Config Management Plugin decrypts: its generate command runs
 * `find . -type f -name '*.enc.yaml'` in the Application path (`lib/constructs/argocd/argocd-install.ts`).
 */
export const SOPS_ENCRYPTED_SUFFIX = '.enc.yaml';

/** A homelab-repo directory that an Application renders (`spec.source(s)[].path`). */
export interface CoverageSource {
  /** Name of the Application. */
  readonly application: string;
  /** Config field that sets the path, e.g. `argocd.applications.duckdns.sources[0].path`. */
  readonly configPath: string;
  /** Repo-relative directory (`.` is the root). */
  readonly path: string;
  /** A Config Management Plugin renders the directory; otherwise Argo CD picks kustomize, Helm or plain files. */
  readonly pluginName?: string;
  /** `directory.recurse`. */
  readonly recurse: boolean;
  /** `directory.include`, as rendered. */
  readonly include?: string;
  /** `directory.exclude`, as rendered (the Application adds `*.enc.yaml` whenever it renders a `directory`). */
  readonly exclude?: string;
  /**
   * The path is an overlay the user owns (a delivery app's `overlayPath`): a kustomization that must reach this
   * generated folder, which `dist/` holds and `npm run check` checks.
   */
  readonly overlayOf?: string;
}

/** A Helm values file an Application reads from the homelab repo through the `$values` ref. */
export interface CoverageValuesFile {
  readonly application: string;
  /** Config field that sets it, e.g. `argocd.applications.prometheus.sources[0].valueFiles[0]`. */
  readonly configPath: string;
  /** Repo-relative file. */
  readonly path: string;
}

/** What the audit compares with the tree: every homelab-repo path the Applications read, and the exemptions. */
export interface CoverageModel {
  /** The homelab repository URL the Applications fetch from. */
  readonly repoUrl: string;
  /** Names of every Application, the root app-of-apps included, sorted. */
  readonly applications: readonly string[];
  /** Directory and plugin sources in the homelab repo, sorted by path and Application. */
  readonly sources: readonly CoverageSource[];
  /** `$values` files, sorted by path and Application. */
  readonly valuesFiles: readonly CoverageValuesFile[];
  /** Folder of the homelab repo where the synthesized `dist/` is committed. */
  readonly distPath: string;
  /** Repo-relative directories deliberately left without an Application (`argocd.unmanaged`). */
  readonly unmanaged: readonly string[];
  /** Name of the Application that applies every `*.enc.yaml`. */
  readonly sopsApplication: string;
  /** Paths under which the sops plugin finds `*.enc.yaml` files (the `sops-secrets` plugin sources). */
  readonly sopsPaths: readonly string[];
  /**
   * Repo-relative directories a generated Application replaced (e.g. the catalog's Docker-in-Docker runner folder,
   * replaced by the build part's runner): left over until deleted, reconciled by nothing, and not orphans.
   * @default []
   */
  readonly superseded?: readonly SupersededPath[];
}

/** A directory a generated Application replaced. */
export interface SupersededPath {
  readonly path: string;
  /** The Application that replaced it. */
  readonly by: string;
}

/** Config keys of the generated Applications (they have no `argocd.applications` entry). */
const GENERATED_CONFIG_PATHS: Readonly<Record<string, string>> = {
  [GENERATED_APPLICATIONS.projects]: 'git.distPath',
  [GENERATED_APPLICATIONS.sopsSecrets]: 'argocd.sopsSecrets',
  [GENERATED_APPLICATIONS.dataSchemas]: 'argocd.dataSchemas',
  [GENERATED_APPLICATIONS.backupChecks]: 'postgresClusters.<name>.backup',
  [GENERATED_APPLICATIONS.forgejoMirror]: 'argocd.forgejoMirror',
  [GENERATED_APPLICATIONS.temporal]: 'argocd.temporal',
};

interface RenderedSource {
  readonly repoURL?: string;
  readonly path?: string;
  readonly ref?: string;
  readonly chart?: string;
  readonly plugin?: { readonly name?: string };
  readonly directory?: { readonly recurse?: boolean; readonly include?: string; readonly exclude?: string };
  readonly helm?: { readonly valueFiles?: readonly string[] };
}

/**
 * Reads the paths of `argocd` from the rendered Application manifests (what Argo CD will see), with the root
 * app-of-apps. `unmanaged` is the config's `argocd.unmanaged`.
 */
export function coverageModel(argocd: ArgoCdChart, unmanaged: readonly string[] = []): CoverageModel {
  const repoUrl = argocd.repo.url;
  const apps = [argocd.root as HomelabApplication, ...argocd.applications.values()].sort((a, b) => compare(a.name, b.name));
  const sources: CoverageSource[] = [];
  const valuesFiles: CoverageValuesFile[] = [];
  for (const app of apps) {
    const field = configField(app.name, argocd);
    const spec = app.resource.toJson().spec as { source?: RenderedSource; sources?: RenderedSource[] };
    const rendered = spec.sources ?? (spec.source ? [spec.source] : []);
    rendered.forEach((s, i) => {
      const at = field.catalog ? `${field.path}.sources[${i}]` : field.path;
      if (s.repoURL === repoUrl && s.path !== undefined && s.chart === undefined && s.ref === undefined) {
        sources.push({
          application: app.name,
          configPath: field.catalog ? `${at}.path` : at,
          path: s.path,
          pluginName: s.plugin?.name,
          recurse: s.directory?.recurse === true,
          include: s.directory?.include,
          exclude: s.directory?.exclude,
          overlayOf: argocd.delivery.map((part) => part.overlays?.get(app.name)).find((o) => o !== undefined),
        });
      }
      (s.helm?.valueFiles ?? []).forEach((f, j) => {
        const prefix = `$${VALUES_REF}/`;
        if (f.startsWith(prefix)) {
          const path = f.slice(prefix.length);
          // A values file a Phase-0 release was installed with is not in the Application's config: adopting sets it.
          const adopted = argocd.phase0Releases.find((r) => r.adoptedBy === app.name && r.valuesFile === path);
          const configPath = adopted ? `${adopted.configPath}.adoptedBy` : field.catalog ? `${at}.valueFiles[${j}]` : at;
          valuesFiles.push({ application: app.name, configPath, path });
        }
      });
    });
  }
  const byPath = <T extends { path: string; application: string }>(a: T, b: T) => compare(a.path, b.path) || compare(a.application, b.application);
  return {
    repoUrl,
    applications: apps.map((a) => a.name),
    sources: sources.sort(byPath),
    valuesFiles: valuesFiles.sort(byPath),
    distPath: argocd.repo.distPath,
    unmanaged: [...new Set(unmanaged.map((u) => u.replace(/\/+$/, '')))].sort(compare),
    sopsApplication: argocd.sopsSecrets.name,
    sopsPaths: argocd.sopsSecrets.sources.flatMap((s) => (s.kind === 'plugin' ? [s.path] : [])).sort(compare),
    superseded: argocd.delivery.flatMap((part) => part.supersedes ?? []).sort((a, b) => compare(a.path, b.path)),
  };
}

function configField(name: string, argocd: ArgoCdChart): { path: string; catalog: boolean } {
  if (name === argocd.root.name) return { path: 'git.distPath', catalog: false };
  // The delivery parts' Applications (lib/homelab/delivery) each name their config path.
  const generated = GENERATED_CONFIG_PATHS[name] ?? argocd.delivery.map((part) => part.configPaths.get(name)).find((p) => p !== undefined);
  return generated ? { path: generated, catalog: false } : { path: `argocd.applications.${name}`, catalog: true };
}

/** Whether `p` is `dir` or inside it (`.` contains everything). */
export function isInside(p: string, dir: string): boolean {
  return dir === '.' || p === dir || p.startsWith(`${dir}/`);
}

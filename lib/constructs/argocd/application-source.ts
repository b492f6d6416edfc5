/**
 * Where an Application's manifests come from: typed source kinds, so that a wrong source cannot be written.
 * Pure types and rules, no constructs.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/multiple_sources/
 */

/** Plain manifests or a kustomization at a path of the homelab repository. */
export interface GitPathSource {
  readonly kind: 'git-path';
  /** Repo-relative directory, e.g. `k8s/infra/longhorn`. */
  readonly path: string;
  /**
   * Read subdirectories too (plain-manifest directories only).
   * @default false
   */
  readonly recurse?: boolean;
  /**
   * Glob of the files to read (`directory.include`; plain-manifest directories only, never a kustomization).
   * @default - every manifest file
   */
  readonly include?: string;
  /**
   * Glob of the files to skip (`directory.exclude`; plain-manifest directories only), e.g. `*-values.yaml`.
   * @default - none
   */
  readonly exclude?: string;
}

/**
 * A remote Helm chart at a pinned version. Its values files live in the homelab repository and are read
 * through a second source with `ref: values` (`$values/<path>`), so the chart is never vendored.
 */
export interface HelmChartSource {
  readonly kind: 'helm-chart';
  /** The chart repository: `https://…` (a Helm repo index) or `oci://registry/path` (without the chart name). */
  readonly repoURL: string;
  /** Chart name. */
  readonly chart: string;
  /** Exact chart version, e.g. `1.6.0`. Ranges, `*`, `latest` and empty versions are rejected. */
  readonly version: string;
  /**
   * Repo-relative paths of values files in the homelab repository, applied in order.
   * @default [] - the chart's defaults
   */
  readonly valueFiles?: readonly string[];
  /**
   * Helm release name.
   * @default - the Application name
   */
  readonly releaseName?: string;
  /**
   * Skip the chart's CRDs (another Application installs them, e.g. `prometheus-crds`).
   * @default false
   */
  readonly skipCrds?: boolean;
}

/** A directory rendered by a Config Management Plugin, e.g. the `sops` plugin that decrypts `*.enc.yaml`. */
export interface PluginSource {
  readonly kind: 'plugin';
  /** Repo-relative directory the plugin runs in (`.` is the repository root). */
  readonly path: string;
  /** Name of the plugin (`spec.source.plugin.name`), as configured in the repo-server's sidecar. */
  readonly pluginName: string;
}

/** One source of an Application. */
export type ApplicationSource = GitPathSource | HelmChartSource | PluginSource;

/** The `ref` of the homelab-repo source that values files are read through. */
export const VALUES_REF = 'values';

/** The URL Argo CD fetches a chart from; OCI charts name the chart in the URL. */
export function chartRepoUrl(source: HelmChartSource): string {
  return source.repoURL.startsWith('oci://') ? `${source.repoURL.replace(/\/+$/, '')}/${source.chart}` : source.repoURL;
}

/**
 * Where the Argo CD tree writes its files, relative to `dist/`. Repo-relative paths are these joined to
 * `git.distPath` (see `HomelabRepo.distFile`). Pure data, no constructs.
 */
export const ARGOCD_DIST = {
  /** One file per Application; the root app-of-apps syncs this folder. */
  apps: 'argocd/apps',
  /** The root app-of-apps (applied by the bootstrap in Phase 0). */
  root: 'argocd/root',
  /** The AppProject (applied by the bootstrap in Phase 0, reconciled by the `projects` Application after). */
  projects: 'argocd/projects',
  /** Generated Helm values files, read by charts through the `$values` ref. */
  values: 'values',
  /** CNPG Databases (and Clusters) delivered by the `data-schemas` Application. */
  dataSchemas: 'data-schemas',
  /** The Job that creates Forgejo's pull-mirror of the GitHub seed. */
  forgejoMirror: 'forgejo-mirror',
} as const;

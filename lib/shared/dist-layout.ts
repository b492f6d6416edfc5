/**
 * Where the Argo CD tree writes its files, relative to `dist/`. Repo-relative paths are these joined to
 * `git.distPath` (see `HomelabRepo.distFile`). Pure data, no constructs.
 */
export const ARGOCD_DIST = {
  /** One file per Application; the root app-of-apps syncs this folder. */
  apps: 'argocd/apps',
  /**
   * After the cutover only: every Application of `apps` reading the GitHub seed instead of Forgejo. A rebuild's seed
   * root app syncs this folder from GitHub, so the whole tree (the Forgejo mirror Job among it) comes up without
   * the empty Forgejo; the flip then moves the root app to `apps` on Forgejo.
   */
  seedApps: 'argocd/seed-apps',
  /** The root app-of-apps (applied by the bootstrap in Phase 0). */
  root: 'argocd/root',
  /** The AppProject (applied by the bootstrap in Phase 0, reconciled by the `projects` Application after). */
  projects: 'argocd/projects',
  /** Generated Helm values files, read by charts through the `$values` ref. */
  values: 'values',
  /** CNPG Databases (and Clusters) delivered by the `data-schemas` Application. */
  dataSchemas: 'data-schemas',
  /** Backup alerts (PodMonitors, PrometheusRules) and restore drills, delivered by the `backup-checks` Application. */
  backupChecks: 'backup-checks',
  /** The Job that creates Forgejo's pull-mirror of the GitHub seed. */
  forgejoMirror: 'forgejo-mirror',
} as const;

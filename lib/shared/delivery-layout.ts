/**
 * Where the delivery parts write, relative to `dist/`, and the names they share. Pure data, no constructs: the
 * Rollouts part references the E2E part's AnalysisTemplate by name, and both write into one folder per app.
 */

/** Folders of the delivery parts under `dist/`. */
export const DELIVERY_DIST = {
  /** One folder per app of `delivery.apps`: its generated manifests and a `kustomization.yaml` listing them. */
  apps: 'apps',
  /** One folder per delivery controller Application (`delivery/argo-rollouts`, `delivery/kyverno-policies`...). */
  controllers: 'delivery',
  /** Forgejo Actions workflows for application repositories to copy; never applied to the cluster. */
  workflows: 'workflows',
  /** Talos machine-config patches for the nodes; never applied to the cluster. */
  talos: 'talos',
} as const;

/** The folder of one app's generated manifests. */
export function appDistFolder(app: string): string {
  return `${DELIVERY_DIST.apps}/${app}`;
}

/** The file of an app's folder that holds its E2E objects (AnalysisTemplate or PostSync Job); the app's kustomization lists it. */
export const APP_E2E_FILE = 'e2e.yaml';

/** Name of the AnalysisTemplate (Job provider) that runs an app's E2E journeys against its canary. */
export function e2eAnalysisTemplateName(app: string): string {
  return `${app}-e2e`;
}

/**
 * Label of every app-tier namespace (the namespaces of `delivery.apps`): Kyverno's `Deny` policy selects them, so
 * platform and Phase-0 namespaces can never be locked out by a signature check.
 */
export const APP_TIER_LABEL = { key: 'homelab.dev/tier', value: 'app' } as const;

/** The Service that selects an app's stable pods (a canary's `stableService`, a rolling app's only Service). */
export function stableServiceName(app: string): string {
  return app;
}

/** The Service that selects a canary's new pods (`canaryService`): what the E2E analysis tests before promotion. */
export function canaryServiceName(app: string): string {
  return `${app}-canary`;
}

/**
 * The names of the Argo CD Applications the tree generates itself, in one place: the catalog
 * (`argocd.applications`) and the app tier (`delivery.apps`) may not use them, and every part that defines or
 * depends on one reads its name from here. Pure data.
 */

/** The root app-of-apps, which the runbook applies and which syncs every other Application. */
export const ROOT_APPLICATION = 'root';

/** The Applications of the Argo CD tree itself (the generated catalog entries), by role. */
export const GENERATED_APPLICATIONS = {
  projects: 'projects',
  sopsSecrets: 'sops-secrets',
  dataSchemas: 'data-schemas',
  backupChecks: 'backup-checks',
  forgejoMirror: 'forgejo-mirror',
  temporal: 'temporal',
} as const;

/** The Applications of the steady-state delivery (`delivery`, ADR 0001 Part B), by role. */
export const DELIVERY_APPLICATIONS = {
  /** The Forgejo runner with rootless BuildKit (`delivery.build`). */
  runner: 'forgejo-runner',
  /** The Kyverno chart (`delivery.kyverno`). */
  kyverno: 'kyverno',
  /** The signature policies, which open the app tier. */
  kyvernoPolicies: 'kyverno-policies',
  /** The Argo Rollouts controller (`delivery.rollouts`). */
  argoRollouts: 'argo-rollouts',
  /** Argo CD Image Updater (`delivery.imageUpdater`). */
  imageUpdater: 'argocd-image-updater',
  /** The scheduled E2E smoke journeys (`delivery.e2e.smoke`). */
  e2eSmoke: 'e2e-smoke',
} as const;

/** What generates the Application called `name`, in words, or undefined when the tree generates none of that name. */
export function generatedApplicationRole(name: string): string | undefined {
  if (name === ROOT_APPLICATION) return 'the root app-of-apps';
  const generated = Object.entries(GENERATED_APPLICATIONS).find(([, n]) => n === name);
  if (generated) return `the Argo CD tree's ${generated[0]} Application`;
  const delivery = Object.entries(DELIVERY_APPLICATIONS).find(([, n]) => n === name);
  if (delivery) return `the delivery section's ${delivery[0]} Application`;
  return undefined;
}

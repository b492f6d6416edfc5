/**
 * The Argo CD sync waves of the steady state, as one typed table. Pure data, no constructs.
 *
 * The root app-of-apps applies the Applications of `dist/argocd/apps/` wave by wave and waits for each wave to
 * be healthy before the next one starts. Every Application of the platform names its wave from this table, and an
 * Application may only depend on Applications in strictly earlier waves.
 *
 * A wave that never turns healthy holds every later wave, so what may fail on its own without the platform being at
 * fault (the app tier of the steady-state delivery: a canary that aborts, an E2E hook that fails, the signature gate
 * in front of them) comes after the whole platform, in the app tier's waves (`APP_TIER_WAVES`), which are derived
 * from dependencies and never typed in the config.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/
 */

/** The waves an Application may sit in. */
export type SyncWave = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

/** The lowest and highest wave. */
export const FIRST_SYNC_WAVE: SyncWave = 0;
export const LAST_SYNC_WAVE: SyncWave = 8;

/**
 * The app tier's waves, after the last platform wave: the root reaches them only once the platform is healthy, and
 * nothing of the platform waits for them.
 */
export type AppTierWave = 9 | 10 | 11 | 12;
export const FIRST_APP_TIER_WAVE: AppTierWave = 9;
export const LAST_APP_TIER_WAVE: AppTierWave = 12;

/** Any wave an Application of the tree may sit in: the platform's (typed in the config) or the app tier's (derived). */
export type ApplicationWave = SyncWave | AppTierWave;

/** Annotation that carries an object's wave; its value is a string. */
export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';

/** What each wave holds, named by role so the catalog reads as the bring-up order. */
export const SYNC_WAVES = {
  /** Cluster substrate, CRDs, secrets and the project itself: everything later waves build on. */
  SUBSTRATE: 0,
  /** Platform services: certificates, ingress, storage configuration, object storage, metrics. */
  PLATFORM: 1,
  /** Observability on top of the platform: dashboards, rules, logs. */
  OBSERVABILITY: 2,
  /** Identity, secrets management and CI/CD glue, including the Forgejo pull-mirror. */
  IDENTITY_AND_CICD: 3,
  /** Delivery controllers: Argo CD Image Updater (its wave is derived, and lands here for the reference homelab). */
  DELIVERY: 4,
  /** Messaging CRDs. */
  MESSAGING_CRDS: 5,
  /** Data: CNPG Databases (and Clusters) of the `data-schemas` Application, the Kafka cluster. */
  DATA: 6,
  /** Services that need the data wave: identity provider, messaging services. */
  DATA_CONSUMERS: 7,
  /** User-facing applications. */
  APPS: 8,
} as const satisfies Record<string, SyncWave>;

/** Returns why `wave` is not a valid sync wave, or undefined when it is (for values from untyped input). */
export function syncWaveProblem(wave: unknown): string | undefined {
  if (typeof wave !== 'number' || !Number.isInteger(wave) || wave < FIRST_SYNC_WAVE || wave > LAST_SYNC_WAVE) {
    return `must be an integer from ${FIRST_SYNC_WAVE} to ${LAST_SYNC_WAVE}, got ${JSON.stringify(wave)}`;
  }
  return undefined;
}

/**
 * Returns why `wave` is not a wave of the app tier (an integer from `FIRST_APP_TIER_WAVE` to `LAST_APP_TIER_WAVE`),
 * or undefined when it is.
 */
export function appTierWaveProblem(wave: unknown): string | undefined {
  if (typeof wave !== 'number' || !Number.isInteger(wave) || wave < FIRST_APP_TIER_WAVE || wave > LAST_APP_TIER_WAVE) {
    return `must be an integer from ${FIRST_APP_TIER_WAVE} to ${LAST_APP_TIER_WAVE} (the app tier's waves, after the platform's), got ${JSON.stringify(wave)}`;
  }
  return undefined;
}

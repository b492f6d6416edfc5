/**
 * What each part of the steady-state delivery (ADR 0001 Part B) adds to the Argo CD tree, and how its waves are
 * derived. Each part lives in its own file of lib/homelab/delivery/ and is assembled by `defineDelivery`.
 */
import { ApiObject } from 'cdk8s';
import type { ResolvedHomelabConfig } from '../../config/homelab-config';
import type { ResolvedDeliveryConfig } from '../../config/delivery/types';
import type { HomelabApplication } from '../../constructs/argocd/homelab-application';
import type { HomelabProject } from '../../constructs/argocd/homelab-project';
import type { HomelabRepo } from '../../constructs/argocd/homelab-repo';
import type { ForgejoEndpoint } from '../../shared/git-urls';
import type { INetworkWorkload, NetworkFlow } from '../../shared/network';
import type { PodSecurityException } from '../../shared/pod-security';
import type { OutputFiles } from '../../output/output-tree';
import { AppTierWave, FIRST_APP_TIER_WAVE, LAST_APP_TIER_WAVE, LAST_SYNC_WAVE, SyncWave } from '../../shared/sync-waves';

/** A Secret the tree references but never defines (the same shape as the Argo CD tree's `SecretReference`). */
export interface DeliverySecretReference {
  readonly namespace: string;
  readonly name: string;
  readonly keys: readonly string[];
  readonly usedBy: string;
}

/** What every part reads. */
export interface DeliveryContext {
  readonly config: ResolvedHomelabConfig;
  readonly delivery: ResolvedDeliveryConfig;
  readonly project: HomelabProject;
  readonly repo: HomelabRepo;
  readonly forgejo: ForgejoEndpoint;
  /** The Applications defined before the delivery parts (catalog and generated), by name: dependencies to derive waves from. */
  readonly applications: ReadonlyMap<string, HomelabApplication>;
}

/** What one part adds. */
export interface DeliveryPart {
  /** Applications under the root app-of-apps. */
  readonly applications: readonly HomelabApplication[];
  /** Each API object the part defines, with the file (relative to `dist/`) it is written to. */
  readonly files: readonly (readonly [ApiObject, string])[];
  /** Files that are not API objects of the chart (kustomizations, workflows, Talos snippets), relative to `dist/`. */
  readonly extraFiles?: OutputFiles;
  readonly secrets: readonly DeliverySecretReference[];
  /**
   * The config path behind each of `applications`, by Application name, for messages (e.g. the coverage audit's): one
   * entry per Application, checked by `defineDelivery`.
   */
  readonly configPaths: ReadonlyMap<string, string>;
  /**
   * Applications whose source is a directory the user owns (an overlay outside `dist/`) that must list a generated
   * folder: Application name → the repo path of that folder. The coverage audit checks the overlay reaches it.
   */
  readonly overlays?: ReadonlyMap<string, string>;
  /**
   * Connections the part's pods open, added to the network isolation (a pod in a default-deny namespace such as
   * `argocd` reaches nothing else). @default - none
   */
  readonly networkFlows?: readonly NetworkFlow[];
  /** Workloads whose flows the network isolation must allow (e.g. the runner's pods calling Forgejo). @default [] */
  readonly networkWorkloads?: readonly INetworkWorkload[];
  /** Containers allowed beyond the restricted Pod Security profile, with the reason (the output validation reads them). @default [] */
  readonly podSecurityExceptions?: readonly PodSecurityException[];
  /**
   * Repo-relative directories this part's Applications replace (a catalog entry's folder): the coverage audit does not
   * report what is left there as orphans. @default []
   */
  readonly supersedes?: readonly { readonly path: string; readonly by: string }[];
}

export const EMPTY_PART: DeliveryPart = { applications: [], files: [], secrets: [], configPaths: new Map() };

/**
 * The earliest wave after every dependency: the root app-of-apps waits for a wave to be healthy before the next, so
 * an Application is safe one wave after the last thing it needs. Waves are derived, never typed, for delivery parts.
 */
export function waveAfter(what: string, dependencies: readonly HomelabApplication[]): SyncWave {
  const wave = dependencies.length === 0 ? 0 : Math.max(...dependencies.map((d) => d.syncWave)) + 1;
  if (wave > LAST_SYNC_WAVE) {
    throw new Error(`${what} needs ${dependencies.map((d) => `${d.name} (wave ${d.syncWave})`).join(', ')} first, so it would sit in ` +
      `wave ${wave}, after the last wave ${LAST_SYNC_WAVE}. Move a dependency to an earlier wave.`);
  }
  return wave as SyncWave;
}

/**
 * The earliest wave of the app tier after every dependency: never before `FIRST_APP_TIER_WAVE`, so the platform's
 * waves are all applied (and healthy) first and none of them waits for the app tier. Waves are derived, never typed.
 */
export function appTierWaveAfter(what: string, dependencies: readonly HomelabApplication[]): AppTierWave {
  const wave = Math.max(FIRST_APP_TIER_WAVE, ...dependencies.map((d) => d.syncWave + 1));
  if (wave > LAST_APP_TIER_WAVE) {
    throw new Error(`${what} needs ${dependencies.map((d) => `${d.name} (wave ${d.syncWave})`).join(', ')} first, so it would sit in ` +
      `wave ${wave}, after the app tier's last wave ${LAST_APP_TIER_WAVE}. Depend on fewer app-tier Applications in a row.`);
  }
  return wave as AppTierWave;
}

/**
 * The latest wave before `dependentWave` (the wave of the first Application that needs it): for what only a later
 * tier needs, so that no earlier wave waits for it. It must still follow its own dependencies.
 */
export function waveBefore(what: string, dependentWave: number, dependencies: readonly HomelabApplication[]): SyncWave {
  const earliest = waveAfter(what, dependencies);
  const wave = Math.min(dependentWave - 1, LAST_SYNC_WAVE);
  if (wave < earliest) {
    throw new Error(`${what} must sit before wave ${dependentWave}, which needs it, and after ${dependencies.map((d) => `${d.name} (wave ${d.syncWave})`).join(', ')}: ` +
      'no wave is left between them. Move a dependency to an earlier wave.');
  }
  return wave as SyncWave;
}

/** An Application of the context by name; a delivery part that needs one the config does not have says which. */
export function requiredApplication(ctx: DeliveryContext, name: string, neededBy: string): HomelabApplication {
  const app = ctx.applications.get(name);
  if (!app) throw new Error(`${neededBy} needs the Argo CD Application '${name}', which argocd.applications does not define. Add it, or remove delivery.`);
  return app;
}

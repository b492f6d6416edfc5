import { createHash } from 'crypto';
import { parseAllDocuments } from 'yaml';
import { Faults } from './controllers';
import { BringUpOutcome, simulateBringUp, SimulationInput, SimulationOptions } from './bring-up';
import { applicationObjects, imageName, isKustomizeSource } from './repository';
import { syncWave } from './argocd-sync';
import {
  ArchiveLocation, BARMAN_CLOUD_PLUGIN, CNPG_OPERATOR_NAMESPACE, PHASE_UNKNOWN_PLUGIN, PHASE_UNRECOVERABLE, PLUGIN_NAME_LABEL, pluginsNeeded,
  recoverySource, remoteManifestObjects, Surroundings, walArchiveTarget,
} from './barman-cloud';

type Obj = Record<string, any>;

/** A bring-up scenario: the faults it injects into a given output, and the text that names its cause. */
export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly faults: Faults;
  /** What the final state's message must contain; undefined for the happy path. */
  readonly cause?: string;
  /**
   * What object storage holds before the bring-up.
   * @default - nothing
   */
  readonly surroundings?: Surroundings;
  /**
   * Text the outcome's `finalState` must contain: the root cause as the operator, the plugin or barman reports it,
   * where the runbook's or Argo CD's own message only names the phase.
   * @default - none
   */
  readonly evidence?: string;
  /**
   * How the bring-up must end.
   * @default - 'Healthy' without a cause, 'Failed' or 'Degraded' with one
   */
  readonly endsIn?: BringUpOutcome['state'];
  /**
   * A second bring-up on the World the first one left, with these faults: a re-run of the runbook on a live cluster.
   * The scenario's cause, evidence and end state are the second run's.
   * @default - one bring-up
   */
  /**
   * What the fault must leave alone, checked on the outcome's `applications`: the Applications that still end
   * Healthy, and those the root never reaches (so never creates).
   * @default - not checked
   */
  readonly spared?: { readonly healthy: readonly string[]; readonly neverApplied: readonly string[] };
  readonly secondRun?: {
    readonly faults: Faults;
    /**
     * Files the repository holds for the second run in addition to the first run's `repoFiles`, by
     * repository-relative path: a commit made in between, e.g. Argo CD Image Updater's write-back of a new digest.
     * @default - none: the same commit
     */
    readonly repoFiles?: Readonly<Record<string, string>>;
  };
}

/** The end states a scenario accepts. */
export function expectedStates(s: Scenario): BringUpOutcome['state'][] {
  if (s.endsIn) return [s.endsIn];
  return s.cause === undefined ? ['Healthy'] : ['Failed', 'Degraded'];
}

/** The outcome of a scenario, with the first run's when it has a second one. */
export interface ScenarioOutcome extends BringUpOutcome {
  readonly firstRun?: BringUpOutcome;
}

/** Runs a scenario: one bring-up, or two on the same World when it has a `secondRun`. */
export function simulateScenario(input: SimulationInput, s: Scenario, options: Omit<SimulationOptions, 'faults' | 'surroundings' | 'world'>): ScenarioOutcome {
  const first = simulateBringUp(input, { ...options, faults: s.faults, surroundings: s.surroundings });
  if (!s.secondRun) return first;
  const commit = Object.entries(s.secondRun.repoFiles ?? {});
  const next = commit.length === 0 ? input : { ...input, repoFiles: new Map([...(input.repoFiles ?? new Map<string, string>()), ...commit]) };
  return { ...simulateBringUp(next, { ...options, faults: s.secondRun.faults, world: first.world }), firstRun: first };
}

function allObjects(input: SimulationInput): { obj: Obj; phase0: boolean }[] {
  const out: { obj: Obj; phase0: boolean }[] = [];
  for (const p of input.steps) for (const obj of p.objects) out.push({ obj, phase0: true });
  for (const [file, text] of input.tree) {
    if (file.startsWith('bootstrap/') || !file.endsWith('.yaml')) continue;
    for (const d of parseAllDocuments(text)) {
      const obj = d.toJS() as Obj;
      if (obj && typeof obj === 'object') out.push({ obj, phase0: false });
    }
  }
  return out;
}

/**
 * The archives the output's restores read: for each Cluster recovering through the Barman Cloud plugin, the server
 * name of its recovery source under its ObjectStore's destinationPath. What a lost homelab left in object storage.
 */
export function backupsLeftBehind(input: SimulationInput): Surroundings {
  const objs = allObjects(input).map((o) => o.obj);
  const archives: ArchiveLocation[] = [];
  for (const c of objs.filter((o) => o.kind === 'Cluster')) {
    const source = recoverySource(c);
    const store = source && objs.find((o) => o.kind === 'ObjectStore' && o.metadata?.namespace === c.metadata.namespace && o.metadata?.name === source.objectStore);
    if (source && store) archives.push({ destinationPath: store.spec?.configuration?.destinationPath ?? '', serverName: source.serverName });
  }
  return { archives };
}

/** The scenarios that apply to `input`, by name; targets are chosen from the output, deterministically. */
export function scenariosFor(input: SimulationInput): Scenario[] {
  const objs = allObjects(input);
  const byName = (a: Obj, b: Obj) => syncWave(a) - syncWave(b) || (a.metadata.name < b.metadata.name ? -1 : 1);
  const of = (kind: string, phase0: boolean) => objs.filter((o) => o.obj.kind === kind && o.phase0 === phase0).map((o) => o.obj).sort(byName);
  const apps = of('Application', false).filter((a) => a.metadata.name !== 'root');
  const surroundings = backupsLeftBehind(input);
  const list: Scenario[] = [{ name: 'happy-path', description: 'every controller does its job', faults: {} }];

  for (const phase0 of [true, false]) {
    const db = of('Database', phase0)[0];
    if (db) {
      const owner = db.spec.owner as string;
      list.push({
        name: `database-rejected${phase0 ? '-phase0' : '-argocd'}`,
        description: `CNPG cannot create Database ${db.metadata.namespace}/${db.metadata.name}: role '${owner}' is missing`,
        faults: { missingRoles: [{ cluster: db.spec.cluster.name, role: owner }] },
        cause: `role "${owner}" does not exist`,
      });
    }
    const cluster = of('Cluster', phase0)[0];
    if (cluster) {
      const reason = 'spec.storage.size: Invalid value: "0": the storage size must be a positive quantity';
      list.push({
        name: `cluster-invalid${phase0 ? '-phase0' : '-argocd'}`,
        description: `CNPG rejects the definition of Cluster ${cluster.metadata.namespace}/${cluster.metadata.name}`,
        faults: { invalidClusters: [{ cluster: cluster.metadata.name, reason }] },
        cause: 'Invalid cluster definition',
      });
    }
  }
  // A git-path Application after wave 0, so the failure is the child's own and not its chart's or plugin's.
  const plain = (a: Obj) => ((a.spec.sources ?? [a.spec.source]) as Obj[]).every((s) => s.chart === undefined && s.plugin === undefined);
  const failing = apps.find((a) => syncWave(a) >= 1 && plain(a)) ?? apps.find((a) => syncWave(a) >= 1);
  if (failing) {
    const message = `Deployment.apps "${failing.metadata.name}" is invalid: spec.template.spec.containers[0].image: Required value`;
    list.push({ name: 'child-sync-fails', description: `the API server rejects an object of Application ${failing.metadata.name}`,
      faults: { rejectedApplies: [{ app: failing.metadata.name, message }] }, cause: message });
  }
  if (apps.some((a) => (a.spec.sources ?? [a.spec.source]).some((s: Obj) => s.plugin?.name === 'sops'))) {
    list.push({ name: 'age-key-missing', description: 'Secret argocd/sops-age was never created: the sops plugin cannot decrypt',
      faults: { missingSecrets: ['argocd/sops-age'] }, cause: 'Failed to get the data key required to decrypt the SOPS file' });
  }
  const probe = 'Readiness probe failed: HTTP probe failed with statuscode: 503';
  list.push({ name: 'forgejo-never-ready', description: 'Forgejo\'s pods never pass their readiness probe',
    faults: { neverReadyDeployments: [{ namespace: forgejoNamespace(input), name: 'forgejo', reason: probe }] },
    cause: 'Deployment "forgejo" exceeded its progress deadline' });
  const chart = apps.flatMap((a) => (a.spec.sources ?? [a.spec.source]) as Obj[]).find((s) => s.chart !== undefined);
  if (chart) {
    // Helm's error for a repository it cannot reach (helm pkg/repo; not taken from a source fetched here).
    const message = `looks like "${chart.repoURL}" is not a valid chart repository or cannot be reached: Get "${chart.repoURL}/index.yaml": dial tcp: i/o timeout`;
    list.push({ name: 'chart-repo-unreachable', description: `Helm repository ${chart.repoURL} cannot be reached`,
      faults: { unreachableChartRepos: [{ url: chart.repoURL, message }] }, cause: 'error fetching chart' });
  }
  list.push(...kyvernoScenarios(apps));
  list.push(...backupScenarios(input, [...of('Cluster', true), ...of('Cluster', false)]));
  list.push(...canaryScenarios(input, apps));
  // Every scenario starts from the same object storage: the archives the output's restores read.
  return list.map((x) => ({ ...x, surroundings }));
}

/**
 * Scenarios of backups and restores through the Barman Cloud plugin, for the Clusters that use it (Phase-0 ones
 * first). Causes are the operator's phases, which the runbook's wait and Argo CD's health check print; the evidence
 * is the plugin's or barman's own words in the final state.
 */
function backupScenarios(input: SimulationInput, clusters: Obj[]): Scenario[] {
  const list: Scenario[] = [];
  const label = (c: Obj) => `${c.metadata.namespace}/${c.metadata.name}`;
  const restoring = clusters.find((c) => recoverySource(c) !== undefined);
  if (restoring) {
    const source = recoverySource(restoring)!;
    list.push({ name: 'rebuild-with-restore', faults: {},
      description: `a bare cluster rebuilt from the config: ${label(restoring)} is restored from server ${source.serverName} before what needs it` });
    list.push({ name: 'restore-source-missing', faults: { serverNamesWithoutBackups: [source.serverName] },
      description: `the object store holds no backup of server ${source.serverName}, which ${label(restoring)} restores from`,
      cause: PHASE_UNRECOVERABLE, evidence: 'no target backup found' });
    const storeOf = (name: string) => allObjects(input).map((o) => o.obj)
      .find((o) => o.kind === 'ObjectStore' && o.metadata?.namespace === restoring.metadata.namespace && o.metadata?.name === name);
    const endpoint = storeOf(source.objectStore)?.spec?.configuration?.endpointURL as string | undefined;
    if (endpoint) {
      // What the S3 client says about an endpoint it cannot connect to (botocore's wording; not from a source fetched here).
      const message = `Could not connect to the endpoint URL: "${endpoint}"`;
      list.push({ name: 'object-store-unreachable', faults: { unreachableObjectStores: [{ endpointURL: endpoint, message }] },
        description: `the object store ${endpoint} cannot be reached while ${label(restoring)} restores`, cause: PHASE_UNRECOVERABLE, evidence: message });
    }
    const credentials = storeOf(source.objectStore)?.spec?.configuration?.s3Credentials?.accessKeyId?.name as string | undefined;
    if (credentials) {
      const ns = restoring.metadata.namespace as string;
      list.push({ name: 'object-store-credentials-missing', faults: { missingSecrets: [`${ns}/${credentials}`] },
        description: `Secret ${ns}/${credentials} with the object store's keys does not exist while ${label(restoring)} restores`,
        cause: PHASE_UNRECOVERABLE, evidence: `while getting secret ${credentials}: secrets "${credentials}" not found` });
    }
    const target = walArchiveTarget(restoring);
    if (target) {
      list.push({ name: 'wal-archive-not-empty', faults: { nonEmptyWalArchives: [target.serverName] },
        description: `server ${target.serverName}, where ${label(restoring)} will archive, already holds WAL: the plugin refuses before restoring`,
        cause: PHASE_UNRECOVERABLE, evidence: 'Expected empty archive' });
    }
    list.push({ name: 're-run-does-not-restore-again', faults: {}, secondRun: { faults: { serverNamesWithoutBackups: [source.serverName] } },
      description: `the runbook runs again on the live cluster after the backup of ${source.serverName} expired: ${label(restoring)} is left as it is` });
  }
  const archiving = clusters.find((c) => walArchiveTarget(c) !== undefined && recoverySource(c) === undefined);
  if (archiving) {
    const target = walArchiveTarget(archiving)!;
    list.push({ name: 'wal-archive-not-empty-running', faults: { nonEmptyWalArchives: [target.serverName] }, endsIn: 'Healthy',
      description: `server ${target.serverName} already holds WAL: ${label(archiving)} runs, but its archiving fails`,
      evidence: 'ContinuousArchiving=False (ContinuousArchivingFailing): rpc error: code = Unknown desc = unexpected failure invoking barman-cloud-wal-archive' });
  }
  if (clusters.some((c) => pluginsNeeded(c).includes(BARMAN_CLOUD_PLUGIN))) {
    const installed = installsPlugin(input, BARMAN_CLOUD_PLUGIN);
    list.push({ name: 'plugin-not-registered', faults: installed ? { unregisteredPlugins: [BARMAN_CLOUD_PLUGIN] } : {},
      description: installed ? `the operator never registers ${BARMAN_CLOUD_PLUGIN}` : `no step installs ${BARMAN_CLOUD_PLUGIN}, which a Cluster names`,
      cause: PHASE_UNKNOWN_PLUGIN });
    if (installed) {
      list.push({ name: 'plugin-never-ready', description: 'the Barman Cloud plugin\'s pods never become ready',
        faults: { neverReadyDeployments: [{ namespace: CNPG_OPERATOR_NAMESPACE, name: 'barman-cloud', reason: 'Readiness probe failed: dial tcp :9090: connect: connection refused' }] },
        // The runbook's rollout wait (300 s) gives up before the Deployment's progress deadline (600 s) would.
        cause: `Deployment ${CNPG_OPERATOR_NAMESPACE}/barman-cloud rolled out: not done within` });
    }
  }
  return list;
}

/** Whether a Phase-0 step applies a remote manifest with the plugin's Service. */
/**
 * `kyverno-unavailable`, for an Application that installs the Kyverno chart: its pods never become ready (the
 * stand-in workload of a chart source, see `targetsOf` in bring-up.ts). The Application goes Degraded when the
 * Deployment exceeds its progress deadline, so the root's sync fails at Kyverno's wave. Everything of that wave and
 * the waves before it must still end Healthy, and only what comes after (the app tier, which must not run before its
 * signatures can be verified) is never applied.
 */
function kyvernoScenarios(apps: Obj[]): Scenario[] {
  const installsKyverno = (a: Obj) => ((a.spec.sources ?? [a.spec.source]) as Obj[]).some((src) => src?.chart === 'kyverno');
  const kyverno = apps.find(installsKyverno);
  if (!kyverno) return [];
  const wave = syncWave(kyverno);
  const name = kyverno.metadata.name as string;
  // By name: a tree may hold an Application twice (e.g. the seed's and Forgejo's copy around the cutover).
  const others = apps.filter((a) => a.metadata.name !== kyverno.metadata.name);
  const names = (list: Obj[]) => [...new Set(list.map((a) => a.metadata.name as string))].sort();
  return [{
    name: 'kyverno-unavailable',
    description: `Kyverno's pods (Application ${name}, wave ${wave}) never become ready: only the waves after it wait`,
    faults: { neverReadyDeployments: [{ namespace: kyverno.spec.destination.namespace, name, reason: 'Readiness probe failed: HTTP probe failed with statuscode: 500' }] },
    cause: `Deployment "${name}" exceeded its progress deadline`,
    spared: {
      healthy: names(others.filter((a) => syncWave(a) <= wave)),
      neverApplied: names(others.filter((a) => syncWave(a) > wave)),
    },
  }];
}

function installsPlugin(input: SimulationInput, plugin: string): boolean {
  return input.steps.some((p) => (p.step.kustomization?.remoteResources ?? [])
    .some((url) => remoteManifestObjects(url).some((o) => o.kind === 'Service' && o.metadata.labels?.[PLUGIN_NAME_LABEL] === plugin)));
}

function forgejoNamespace(input: SimulationInput): string {
  for (const p of input.steps) for (const o of p.objects) if (o.kind === 'Deployment' && o.metadata?.name === 'forgejo') return o.metadata.namespace;
  return 'cicd';
}

/**
 * Scenarios of a canary release, for the first Application (by wave, then name) that renders an Argo Rollouts canary
 * `Rollout` from a Kustomize source (the only kind Argo CD Image Updater can write back to). The first bring-up creates
 * the Rollout, which goes straight to Healthy; then Image Updater commits a new digest (`.argocd-source-<app>.yaml` in
 * the source path) and a second bring-up syncs it, so the Rollout walks its canary steps:
 *
 * - `canary-promoted` (no indefinite pause step): every analysis passes, the Rollout ends Healthy.
 * - `canary-aborted` (an analysis step before any indefinite pause): its first metric fails, the Rollout aborts and is
 *   Degraded. With no pause before the analysis the root still waits at the app's wave and its sync fails there,
 *   naming the abort; after a pause (Suspended counts as done) the root has moved on and its health turns Degraded.
 * - `canary-paused`: at an indefinite `pause: {}` step, else at an inconclusive analysis; the Rollout is Paused, the
 *   child Application Suspended, which the generated Application check counts as done for its wave: the bring-up
 *   ends Healthy with the Rollout still Paused.
 */
function canaryScenarios(input: SimulationInput, apps: Obj[]): Scenario[] {
  for (const app of apps) {
    const source = app.spec?.source as Obj | undefined;
    if (typeof source?.path !== 'string') continue;
    const objs = applicationObjects(input, app);
    const rollout = objs.find((o) => o.kind === 'Rollout' && String(o.apiVersion).startsWith('argoproj.io/') && o.spec?.strategy?.canary);
    const image = rollout?.spec?.template?.spec?.containers?.[0]?.image as string | undefined;
    if (!rollout || !image || !isKustomizeSource(input, app)) continue;
    const { namespace, name } = rollout.metadata as { namespace: string; name: string };
    const label = `Rollout ${namespace}/${name} of Application ${app.metadata.name}`;
    const writeBack = { [`${trimPath(source.path)}/.argocd-source-${app.metadata.name}.yaml`]: imageUpdaterOverride(image) };
    const update = (faults: Faults) => ({ faults, repoFiles: writeBack });
    const steps = (rollout.spec.strategy.canary.steps ?? []) as Obj[];
    const indefinitePause = steps.findIndex((st) => st.pause !== undefined && st.pause.duration === undefined);
    const analysis = steps.findIndex((st) => st.analysis !== undefined);
    const metric = analysis < 0 ? undefined : firstMetric(objs, steps[analysis], namespace);
    const list: Scenario[] = [];
    if (indefinitePause < 0) {
      list.push({ name: 'canary-promoted', faults: {}, secondRun: update({}), endsIn: 'Healthy',
        description: `Image Updater commits a new digest for ${label}: every canary step and analysis passes, it is promoted` });
    }
    if (metric && (indefinitePause < 0 || analysis < indefinitePause)) {
      const failed = `failed (${metric.failureLimit + 1}) > failureLimit (${metric.failureLimit})`;
      // Any pause before the analysis makes the Application Suspended, which the root counts as done for its wave:
      // the root's sync has moved on when the abort comes, and the root's health turns Degraded. Without one, the
      // root still waits at the app's wave (the app is Progressing) and its sync fails there.
      const rootPassedTheWave = steps.slice(0, analysis).some((st) => st.pause !== undefined);
      list.push({ name: 'canary-aborted', faults: {}, secondRun: update({ failingAnalyses: [{ namespace, rollout: name, metric: metric.name }] }),
        description: `the canary of ${label} fails its analysis (metric ${metric.name}): Argo Rollouts aborts it`,
        // rollout/sync.go:607-615 and rollout/analysis.go:434-439 around the run's message (analysis/analysis.go:504).
        cause: `RolloutAborted: Rollout aborted update to revision 2: Step-based analysis phase error/failed: Metric "${metric.name}" assessed Failed due to ${failed}`,
        endsIn: rootPassedTheWave ? 'Degraded' : 'Failed' });
    }
    if (indefinitePause >= 0) {
      list.push({ name: 'canary-paused', faults: {}, secondRun: update({}), endsIn: 'Healthy', evidence: `Rollout ${namespace}/${name}: Paused: CanaryPauseStep`,
        description: `the canary of ${label} stops at its indefinite pause step: the Application is Suspended and later waves proceed` });
    } else if (metric && metric.inconclusiveLimit >= 0) {
      list.push({ name: 'canary-paused', faults: {}, secondRun: update({ inconclusiveAnalyses: [{ namespace, rollout: name, metric: metric.name }] }),
        endsIn: 'Healthy', evidence: `Rollout ${namespace}/${name}: Paused: InconclusiveAnalysisRun`,
        description: `the analysis of ${label}'s canary is inconclusive (metric ${metric.name}): it pauses, the Application is Suspended and later waves proceed` });
    }
    return list;
  }
  return [];
}

function trimPath(path: string): string {
  return path.replace(/^\.\//, '').replace(/\/+$/, '');
}

/**
 * What Argo CD Image Updater v1.3.0 writes for a Kustomize application (pkg/argocd/update.go:538-560
 * marshalParamsOverride): the image with the tag it tracks and the new digest. The digest is derived from the old
 * reference, so scenarios are deterministic.
 */
export function imageUpdaterOverride(image: string): string {
  const name = imageName(image);
  const rest = image.split('@')[0].slice(name.length);
  const tag = rest.startsWith(':') ? rest : '';
  const digest = createHash('sha256').update(`next build of ${image}`).digest('hex');
  return `kustomize:\n  images:\n  - ${name}${tag}@sha256:${digest}\n`;
}

/** The first metric of an analysis step's first template, with its limits (defaults 0, analysis.go:662-675). */
function firstMetric(objs: Obj[], step: Obj, namespace: string): { name: string; failureLimit: number; inconclusiveLimit: number } | undefined {
  const ref = (step.analysis.templates ?? [])[0] as Obj | undefined;
  const template = objs.find((o) => o.kind === 'AnalysisTemplate' && o.metadata?.name === ref?.templateName && (o.metadata?.namespace ?? namespace) === namespace);
  const metric = (template?.spec?.metrics ?? [])[0] as Obj | undefined;
  if (!metric) return undefined;
  const failureLimit = metric.failureLimit !== undefined ? Number(metric.failureLimit) : 0;
  const count = metric.count !== undefined ? Number(metric.count) : undefined;
  // A disabled failure check, or fewer measurements than the limit allows failures, cannot fail the metric.
  if (failureLimit < 0 || (count !== undefined && count > 0 && count < failureLimit + 1)) return undefined;
  const inconclusiveLimit = metric.inconclusiveLimit !== undefined ? Number(metric.inconclusiveLimit) : 0;
  return { name: String(metric.name), failureLimit, inconclusiveLimit };
}

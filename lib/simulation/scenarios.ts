import { parseAllDocuments } from 'yaml';
import { Faults } from './controllers';
import { BringUpOutcome, simulateBringUp, SimulationInput, SimulationOptions } from './bring-up';
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
  readonly secondRun?: { readonly faults: Faults };
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
  return { ...simulateBringUp(input, { ...options, faults: s.secondRun.faults, world: first.world }), firstRun: first };
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
  list.push(...backupScenarios(input, [...of('Cluster', true), ...of('Cluster', false)]));
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
function installsPlugin(input: SimulationInput, plugin: string): boolean {
  return input.steps.some((p) => (p.step.kustomization?.remoteResources ?? [])
    .some((url) => remoteManifestObjects(url).some((o) => o.kind === 'Service' && o.metadata.labels?.[PLUGIN_NAME_LABEL] === plugin)));
}

function forgejoNamespace(input: SimulationInput): string {
  for (const p of input.steps) for (const o of p.objects) if (o.kind === 'Deployment' && o.metadata?.name === 'forgejo') return o.metadata.namespace;
  return 'cicd';
}

/**
 * Scripted controllers: what CNPG, the Deployment and Job controllers write into status, as a function of how
 * long an object has existed and which faults the scenario injected. Behaviour and messages come from the
 * controllers' sources (cited); timings are illustrative, not measured.
 */

import {
  ArchiveLocation, CNPG_OPERATOR_NAMESPACE, failedJobReason, failingJobAttempts, nonEmptyArchiveError, nonEmptyArchiveLog,
  PHASE_FAILURE_PLUGIN, PHASE_UNKNOWN_PLUGIN, PHASE_UNRECOVERABLE, PLUGIN_CLIENT_SECRET_ANNOTATION, PLUGIN_NAME_LABEL,
  PLUGIN_PORT_ANNOTATION, PLUGIN_SERVER_SECRET_ANNOTATION, pluginsNeeded, pluginUnreachableReason, RECOVERY_ATTEMPT_SECONDS,
  RECOVERY_SECONDS, recoveryJobName, recoverySource, sameLocation, Surroundings, unknownPluginReason, walArchiveTarget,
} from './barman-cloud';
import { RolloutFaults, RolloutsController } from './rollouts-controller';

type Obj = Record<string, any>;

/** Faults a scenario injects into the simulated cluster and its surroundings. */
export interface Faults extends RolloutFaults {
  /** PostgreSQL roles that never come to exist (e.g. a managed role whose password Secret is missing). */
  readonly missingRoles?: readonly { readonly cluster: string; readonly role: string }[];
  /** CNPG Clusters whose definition the operator's admission rejects, with the reason. */
  readonly invalidClusters?: readonly { readonly cluster: string; readonly reason: string }[];
  /** Deployments whose pods never become ready, with what the kubelet reports. */
  readonly neverReadyDeployments?: readonly { readonly namespace: string; readonly name: string; readonly reason: string }[];
  /** Applications whose apply the API server rejects, with its message. */
  readonly rejectedApplies?: readonly { readonly app: string; readonly message: string }[];
  /** Helm chart repositories that cannot be reached, with Helm's error. */
  readonly unreachableChartRepos?: readonly { readonly url: string; readonly message: string }[];
  /** Secrets that were never created (`namespace/name`). */
  readonly missingSecrets?: readonly string[];
  /** Server names whose archive holds no base backup (never written, expired by retention, or deleted). */
  readonly serverNamesWithoutBackups?: readonly string[];
  /** Server names whose WAL archive already holds WAL files, written by a cluster that no longer exists. */
  readonly nonEmptyWalArchives?: readonly string[];
  /** Object-store endpoints (`endpointURL`) that cannot be reached, with what barman-cloud prints. */
  readonly unreachableObjectStores?: readonly { readonly endpointURL: string; readonly message: string }[];
  /**
   * CNPG-I plugins the operator never registers although their Service is applied (e.g. a kustomize patch that drops
   * the `cnpg.io/pluginName` label); a plugin whose install step is missing altogether needs no fault.
   */
  readonly unregisteredPlugins?: readonly string[];
  /**
   * Where the API server really is: the addresses and the https port of the `kubernetes` Service's EndpointSlice (a
   * control-plane node the config's `network.kubernetesApiCidrs` missed, or another port).
   * @default - inside every CIDR the runbook checks, on the port it expects
   */
  readonly apiServerEndpoints?: { readonly addresses: readonly string[]; readonly port: number };
}

/** A live object and when it was created. */
export interface LiveObject {
  /** The last manifest applied (a re-apply replaces it). */
  manifest: Obj;
  readonly createdAt: number;
  /** Status the scripted controller set, recomputed every tick. */
  status?: Obj;
  /** What a controller remembers about the object beyond its status (a Cluster's bootstrap, once it ran). */
  memory?: ClusterMemory;
  /** Timeline messages already reported about the object. */
  logged?: Set<string>;
}

/**
 * What CNPG has done for a Cluster. Set when the operator starts creating the first primary and never recomputed
 * from a later manifest: the bootstrap runs only while `status.instances` is 0 (cnpg
 * internal/controller/cluster_controller.go:1102-1104) and `createPrimaryInstance` refuses once the cluster is
 * initialized (internal/controller/cluster_create.go:1140-1165). A re-applied Cluster with another `bootstrap`
 * therefore never restores again.
 */
export interface ClusterMemory {
  readonly bootstrap: 'initdb' | 'recovery';
  /** When the primary's instance-creation Job started. */
  readonly startedAt: number;
  /** Why the full-recovery Job's pods fail, decided when it starts (the object store does not change meanwhile). */
  readonly recoveryError?: { readonly message: string; readonly log: string };
  /** Failed attempts of the full-recovery Job already reported. */
  failedAttempts: number;
  /** The outcome of the first WAL archive: undefined until the primary runs, then the error or '' for success. */
  archiveError?: string;
}

/** Seconds CNPG needs to set up the primary, then each replica (illustrative). */
export const CNPG_PRIMARY_SECONDS = 60;
export const CNPG_REPLICA_SECONDS = 30;
/** Seconds a healthy Deployment needs to roll out (illustrative). */
export const ROLLOUT_SECONDS = 30;

const key = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;

/** Reports what a controller did, for the timeline. */
export type ControllerLog = (source: string, message: string) => void;

/** The simulated cluster: live objects and the controllers that move their status. */
export class World {
  private readonly objects = new Map<string, LiveObject>();
  /** Archives written during the simulation, by the uid of the cluster that wrote them. */
  private readonly written: { readonly location: ArchiveLocation; readonly writer: string }[] = [];
  /** Plugins whose registration the timeline reported. */
  private readonly registered = new Set<string>();
  private lastReconciled = 0;
  private nextUid = 1;
  /** Where controllers report; a bring-up points it at its timeline. */
  public log: ControllerLog = () => undefined;
  /** Argo Rollouts (lib/simulation/rollouts-controller.ts), reading this World's current faults. */
  private readonly rollouts = new RolloutsController(this, () => this.faults);

  constructor(public faults: Faults, public readonly surroundings: Surroundings = { archives: [] }) {}

  /** Simulated seconds of the last reconcile: a second bring-up on this World continues from here. */
  public get now(): number {
    return this.lastReconciled;
  }

  public static keyOf(obj: Obj): string {
    return key(obj.kind, obj.metadata?.namespace, obj.metadata?.name);
  }

  public apply(manifest: Obj, now: number): LiveObject {
    const k = World.keyOf(manifest);
    const existing = this.objects.get(k);
    if (existing) {
      // Applying again replaces the object, as a server-side apply of the whole manifest does (the runbook's
      // second root step flips the seed root to Forgejo); a changed spec is a new generation.
      const changed = JSON.stringify(existing.manifest.spec) !== JSON.stringify(manifest.spec);
      const generation = Number(existing.manifest.metadata?.generation ?? 1) + (changed ? 1 : 0);
      existing.manifest = { ...manifest, metadata: { ...manifest.metadata, generation } };
      return existing;
    }
    const uid = `uid-${this.nextUid++}`;
    const live: LiveObject = { manifest: { ...manifest, metadata: { generation: 1, ...manifest.metadata, uid } }, createdAt: now };
    this.objects.set(k, live);
    return live;
  }

  /** Deletes an object (the runbook deletes a wait Job before it re-applies it). */
  public delete(kind: string, namespace: string | undefined, name: string): void {
    this.objects.delete(key(kind, namespace, name));
  }

  public list(kind: string, namespace?: string): LiveObject[] {
    return [...this.objects.values()]
      .filter((o) => o.manifest.kind === kind && (namespace === undefined || o.manifest.metadata?.namespace === namespace));
  }

  public get(kind: string, namespace: string | undefined, name: string): LiveObject | undefined {
    return this.objects.get(key(kind, namespace, name));
  }

  public secretExists(namespace: string, name: string): boolean {
    return !(this.faults.missingSecrets ?? []).includes(`${namespace}/${name}`);
  }

  /**
   * The CNPG Clusters that are not Ready or whose WAL archiving fails, each as one line: phase and reason, the
   * failing conditions, and the log of a failed instance-creation Job. Deterministic (sorted).
   */
  public problems(): string[] {
    return [...this.clusterProblems(), ...this.rolloutProblems()];
  }

  /**
   * Each Argo Rollouts `Rollout` that is not Healthy, with its phase and message as `kubectl argo rollouts get` shows
   * them, and each AnalysisRun that did not succeed, with its message. Deterministic (sorted).
   */
  private rolloutProblems(): string[] {
    const label = (o: LiveObject) => `${o.manifest.metadata.namespace}/${o.manifest.metadata.name}`;
    const rollouts = this.list('Rollout').filter((o) => o.status?.phase !== undefined && o.status.phase !== 'Healthy')
      .map((o) => `Rollout ${label(o)}: ${o.status!.phase}${o.status!.message ? `: ${o.status!.message}` : ''}`);
    const runs = this.list('AnalysisRun').filter((o) => ['Failed', 'Error', 'Inconclusive'].includes(o.status?.phase))
      .map((o) => `AnalysisRun ${label(o)}: ${o.status!.phase}: ${o.status!.message ?? ''}`);
    return [...rollouts.sort(), ...runs.sort()];
  }

  private clusterProblems(): string[] {
    return this.list('Cluster').filter((o) => isCnpg(o.manifest)).flatMap((o) => {
      const st = o.status ?? {};
      const conditions = (st.conditions ?? []) as Obj[];
      const failing = conditions.filter((c) => c.status === 'False');
      if (failing.length === 0 && st.phase === 'Cluster in healthy state') return [];
      const { namespace, name } = o.manifest.metadata;
      const parts = [`Cluster ${namespace}/${name}: ${st.phase ?? '(no status)'}${st.phaseReason ? `: ${st.phaseReason}` : ''}`];
      for (const c of failing) if (c.type !== 'Ready') parts.push(`${c.type}=False (${c.reason}): ${c.message}`);
      const failed = o.memory?.recoveryError;
      if (failed && (o.memory?.failedAttempts ?? 0) > 0) {
        parts.push(`logs of job/${recoveryJobName(name)}: ${recoveryLog(failed)}`);
      }
      return [parts.join('; ')];
    }).sort();
  }

  /** What controllers are still moving on their own (a canary between its steps), for a bring-up to wait out. */
  public settling(): string[] {
    return this.rollouts.settling();
  }

  /** The object with its current status, as `kubectl get -o json` would show it. */
  public view(live: LiveObject): Obj {
    return live.status === undefined ? live.manifest : { ...live.manifest, status: live.status };
  }

  /** Moves every controller forward to `now`. Order matters only within one tick: Clusters before Databases. */
  public reconcile(now: number): void {
    this.lastReconciled = now;
    const all = [...this.objects.values()];
    // Deployments first: a Cluster's plugins are reachable only once the plugin's Deployment is available.
    for (const o of all) if (o.manifest.kind === 'Deployment') o.status = this.deploymentStatus(o, now);
    // Rollouts after Deployments: the controller runs only once its own Deployment is available.
    this.rollouts.reconcile(now);
    this.reportRegistrations();
    for (const o of all) if (o.manifest.kind === 'Cluster' && isCnpg(o.manifest)) o.status = this.clusterStatus(o, now);
    for (const o of all) if (o.manifest.kind === 'StatefulSet') o.status = rolledOut(o, now) ? { readyReplicas: 1, updatedReplicas: 1 } : {};
    for (const o of all) if (o.manifest.kind === 'Database') this.reconcileDatabase(o, now);
    for (const o of all) if (o.manifest.kind === 'Job') o.status = this.jobStatus(o, now);
  }

  /**
   * CNPG Cluster phases (cloudnative-pg v1.30.0 api/v1/cluster_types.go:705 "Setting up primary", :708 "Creating a
   * new replica", :730 "Cluster in healthy state", :766 "Invalid cluster definition") and the `Ready` condition
   * derived from the phase (pkg/resources/status/transactions.go:34-56: True with reason ClusterIsReady only in
   * the healthy phase). An invalid definition sets phase, phaseReason and Ready=False (api/v1/cluster_funcs.go:1652-1665,
   * `SetAdmissionError`). Before anything else the operator loads the Cluster's plugins and stops there, requeueing,
   * while one is unknown or unreachable (internal/controller/cluster_controller.go:226-259). The first primary is
   * created by an instance-creation Job, `initdb` or, with `bootstrap.recovery`, a full-recovery Job whose restore
   * the plugin performs (internal/controller/cluster_create.go:1167-1229, :1264-1299).
   */
  private clusterStatus(o: LiveObject, now: number): Obj {
    const name = o.manifest.metadata.name as string;
    const ns = o.manifest.metadata.namespace as string;
    const notReady = { type: 'Ready', status: 'False', reason: 'ClusterIsNotReady', message: 'Cluster Is Not Ready' };
    const invalid = (this.faults.invalidClusters ?? []).find((c) => c.cluster === name);
    if (invalid) return { phase: 'Invalid cluster definition', phaseReason: invalid.reason, conditions: [notReady] };
    for (const plugin of pluginsNeeded(o.manifest)) {
      const problem = this.pluginProblem(plugin);
      if (problem) {
        this.logOnce(o, 'cnpg', `Cluster ${ns}/${name}: ${problem.phase}: ${problem.reason}`);
        return { ...o.status, phase: problem.phase, phaseReason: problem.reason, conditions: [notReady] };
      }
    }
    if (!o.memory) {
      const recovery = o.manifest.spec?.bootstrap?.recovery !== undefined;
      o.memory = { bootstrap: recovery ? 'recovery' : 'initdb', startedAt: now, failedAttempts: 0, recoveryError: recovery ? this.restoreError(o) : undefined };
      const source = recoverySource(o.manifest);
      this.log('cnpg', `Cluster ${ns}/${name}: creating primary instance ${name}-1 (` + (recovery
        ? `Job ${recoveryJobName(name)} restores ${source ? `server ${source.serverName} through ObjectStore ${source.objectStore}` : 'a backup'})`
        : 'initdb)'));
    } else if (o.memory.bootstrap === 'initdb' && o.manifest.spec?.bootstrap?.recovery !== undefined) {
      this.logOnce(o, 'cnpg', `Cluster ${ns}/${name}: spec.bootstrap.recovery ignored: the cluster already has instances, bootstrap runs only at creation`);
    }
    const m = o.memory;
    const creating = { phase: 'Setting up primary', phaseReason: `Creating primary instance ${name}-1` }; // cluster_create.go:1207-1208
    let primaryReadyAt = m.startedAt + CNPG_PRIMARY_SECONDS;
    if (m.bootstrap === 'recovery') {
      if (m.recoveryError) return this.failingRecovery(o, now, m.recoveryError, creating, notReady);
      primaryReadyAt = m.startedAt + RECOVERY_SECONDS;
      if (now >= primaryReadyAt) this.logOnce(o, 'cnpg', `Job ${ns}/${recoveryJobName(name)} completed: the primary ${name}-1 was restored from the backup`);
    }
    if (now < primaryReadyAt) return { ...creating, conditions: [notReady] };
    const archiving = this.archivingCondition(o);
    const instances = (o.manifest.spec?.instances as number | undefined) ?? 1;
    const replicasDone = Math.floor((now - primaryReadyAt) / CNPG_REPLICA_SECONDS);
    if (replicasDone < instances - 1) {
      return { phase: 'Creating a new replica', phaseReason: `Creating replica ${name}-${replicasDone + 2}`, instances: replicasDone + 1, conditions: [notReady, ...archiving] };
    }
    this.logOnce(o, 'cnpg', `Cluster ${ns}/${name}: Cluster in healthy state`);
    return {
      phase: 'Cluster in healthy state', phaseReason: '', instances, currentPrimary: `${name}-1`, targetPrimary: `${name}-1`,
      conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterIsReady', message: 'Cluster is Ready' }, ...archiving],
    };
  }

  /**
   * A full-recovery Job whose pods fail: the Job controller retries until its back-off limit, then the operator
   * reports the failed instance-creation Job as the unrecoverable phase (barman-cloud.ts: failedJobReason). The
   * cause is in the Job's log, which the timeline shows for each failed attempt.
   */
  private failingRecovery(o: LiveObject, now: number, error: { message: string; log: string }, creating: Obj, notReady: Obj): Obj {
    const m = o.memory as ClusterMemory;
    const { name, namespace } = o.manifest.metadata;
    const job = recoveryJobName(name);
    const ends = failingJobAttempts().map((start) => m.startedAt + start + RECOVERY_ATTEMPT_SECONDS);
    while (m.failedAttempts < ends.length && now >= ends[m.failedAttempts]) {
      m.failedAttempts += 1;
      this.log(`job/${job}`, `pod ${m.failedAttempts} of ${ends.length} failed: ${recoveryLog(error)}`);
    }
    const status: Obj = { ...creating, conditions: [notReady] };
    if (m.failedAttempts < ends.length) return status;
    this.logOnce(o, 'cnpg', `Cluster ${namespace}/${name}: ${PHASE_UNRECOVERABLE}: ${failedJobReason(job)}`);
    return { ...status, phase: PHASE_UNRECOVERABLE, phaseReason: failedJobReason(job) };
  }

  /**
   * Why the plugin's Restore fails for this cluster, in the order it checks (plugin internal/cnpgi/restore/restore.go:88-166):
   * the ObjectStores exist; when the cluster also archives, its own destination must be empty (restore.go:105-120,
   * :249-298; CNPG 1.30 sends no decision, so the check runs unless the skip annotation is set); the recovery
   * server name must hold a backup (restore.go:363-413: the catalog from barman-cloud-backup-list, "no target backup
   * found" when none fits).
   */
  private restoreError(o: LiveObject): { message: string; log: string } | undefined {
    const ns = o.manifest.metadata.namespace as string;
    const source = recoverySource(o.manifest);
    if (!source) return undefined;
    const store = (n: string) => this.get('ObjectStore', ns, n);
    const notFound = (n: string) => ({ message: `objectstores.barmancloud.cnpg.io "${n}" not found`, log: `restore: ObjectStore ${ns}/${n} not found` });
    const sourceStore = store(source.objectStore);
    if (!sourceStore) return notFound(source.objectStore);
    const target = walArchiveTarget(o.manifest);
    if (target) {
      const targetStore = store(target.objectStore);
      if (!targetStore) return notFound(target.objectStore);
      const noCredentials = this.missingCredentials(targetStore);
      // restore.go:256-266 wraps it as "can't get credentials for cluster %v: %w".
      if (noCredentials) return { message: `can't get credentials for cluster ${o.manifest.metadata.name}: ${noCredentials}`, log: 'restore: checking the backup destination' };
      const err = this.archiveCheck(targetStore, target.serverName, o);
      if (err) return err;
    }
    const noCredentials = this.missingCredentials(sourceStore);
    if (noCredentials) return { message: noCredentials, log: 'Recovering from external cluster' }; // restore.go:379-388
    const down = this.unreachable(sourceStore);
    // barman-cloud pkg/command/backuplist.go:84-97: the command's exit status, its stderr only in the log (barman's
    // error line; its wording is not taken from a source fetched here).
    if (down) return { message: 'exit status 1', log: `ERROR: Barman cloud backup list exception: ${down}` };
    const location = { destinationPath: sourceStore.manifest.spec?.configuration?.destinationPath ?? '', serverName: source.serverName };
    const hasBackup = this.surroundings.archives.some((a) => sameLocation(a, location))
      && !(this.faults.serverNamesWithoutBackups ?? []).includes(source.serverName);
    if (!hasBackup) return { message: 'no target backup found', log: `Downloaded backup catalog: server ${source.serverName} has no backups` };
    return undefined;
  }

  /**
   * The S3 credentials of an ObjectStore, read from its Secrets before any barman command runs: a missing Secret
   * fails with "while getting secret %s: %w" (barman-cloud pkg/credentials/env.go:340-352) around the API server's
   * NotFound error.
   */
  private missingCredentials(store: LiveObject): string | undefined {
    const s3 = store.manifest.spec?.configuration?.s3Credentials ?? {};
    const ns = store.manifest.metadata.namespace as string;
    const names = [s3.accessKeyId?.name, s3.secretAccessKey?.name].filter((n): n is string => typeof n === 'string');
    const missing = names.find((n) => !this.secretExists(ns, n));
    return missing ? `while getting secret ${missing}: secrets "${missing}" not found` : undefined;
  }

  /** barman-cloud-check-wal-archive against a destination (barman-cloud.ts: nonEmptyArchiveError). */
  private archiveCheck(store: LiveObject, serverName: string, cluster: LiveObject): { message: string; log: string } | undefined {
    const noCredentials = this.missingCredentials(store);
    // The archive path reads the credentials first too (plugin internal/cnpgi/common/wal.go:131-145).
    if (noCredentials) return { message: noCredentials, log: 'archive: reading the object store credentials' };
    const down = this.unreachable(store);
    // barman's error line for an exception of the check (barman's wording, not taken from a source fetched here).
    if (down) return { message: nonEmptyArchiveError(), log: `ERROR: Barman cloud WAL archive check exception: ${down}` };
    const location = { destinationPath: store.manifest.spec?.configuration?.destinationPath ?? '', serverName };
    const uid = cluster.manifest.metadata.uid as string;
    const nonEmpty = (this.faults.nonEmptyWalArchives ?? []).includes(serverName)
      || this.surroundings.archives.some((a) => sameLocation(a, location))
      || this.written.some((w) => sameLocation(w.location, location) && w.writer !== uid);
    return nonEmpty ? { message: nonEmptyArchiveError(), log: nonEmptyArchiveLog(serverName) } : undefined;
  }

  private unreachable(store: LiveObject): string | undefined {
    const url = store.manifest.spec?.configuration?.endpointURL as string | undefined;
    return (this.faults.unreachableObjectStores ?? []).find((u) => u.endpointURL === url)?.message;
  }

  /**
   * The `ContinuousArchiving` condition once the primary runs: its first archive_command checks the destination
   * while the `.check-empty-wal-archive` marker is in PGDATA (plugin internal/cnpgi/common/wal.go:147-178), and a
   * failure is reported as the condition False with reason ContinuousArchivingFailing and the error as message
   * (cnpg internal/cmd/manager/walarchive/cmd.go:65-80, pkg/management/postgres/webserver/local.go:245-263). The
   * instance keeps running: PostgreSQL retries archive_command and keeps the WAL.
   */
  private archivingCondition(o: LiveObject): Obj[] {
    const target = walArchiveTarget(o.manifest);
    if (!target) return [];
    const m = o.memory as ClusterMemory;
    const store = this.get('ObjectStore', o.manifest.metadata.namespace, target.objectStore);
    if (!store) {
      // archive_command fails and PostgreSQL retries it, so archiving starts once the ObjectStore exists.
      const message = `rpc error: code = Unknown desc = objectstores.barmancloud.cnpg.io "${target.objectStore}" not found`;
      return [{ type: 'ContinuousArchiving', status: 'False', reason: 'ContinuousArchivingFailing', message }];
    }
    if (m.archiveError === undefined) {
      // initdb and a restore both leave the marker behind (cnpg pkg/management/postgres/initdb.go:355,
      // restore.go:189-195), so a restored primary checks again on its first archive, after its Job did.
      const err = this.archiveCheck(store, target.serverName, o);
      m.archiveError = err ? `rpc error: code = Unknown desc = ${err.message}` : '';
      const { name, namespace } = o.manifest.metadata;
      if (err) this.log('cnpg', `Cluster ${namespace}/${name}: WAL archiving into server ${target.serverName} failed: ${err.log}; ${m.archiveError}`);
      else {
        this.written.push({ location: { destinationPath: store.manifest.spec?.configuration?.destinationPath ?? '', serverName: target.serverName }, writer: o.manifest.metadata.uid });
        this.log('cnpg', `Cluster ${namespace}/${name}: WAL archiving into server ${target.serverName} works`);
      }
    }
    return [m.archiveError
      ? { type: 'ContinuousArchiving', status: 'False', reason: 'ContinuousArchivingFailing', message: m.archiveError }
      : { type: 'ContinuousArchiving', status: 'True', reason: 'ContinuousArchivingSuccess', message: 'Continuous archiving is working' }];
  }

  /**
   * Whether the operator can use a plugin. It registers a plugin from a Service in its namespace with the
   * `cnpg.io/pluginName` label and the client-secret, server-secret and port annotations (plugin_predicates.go:45-72),
   * once both TLS Secrets can be read (plugin_controller.go:148-180; a failure forgets the plugin, :126-130).
   * Registration only creates a connection pool (repository/setup.go:122-152); each reconcile then acquires and pings
   * a connection (repository/connection.go:56-90), which needs the plugin's pods to serve.
   */
  private pluginProblem(plugin: string): { phase: string; reason: string } | undefined {
    const unknown = { phase: PHASE_UNKNOWN_PLUGIN, reason: unknownPluginReason(plugin) };
    if ((this.faults.unregisteredPlugins ?? []).includes(plugin)) return unknown;
    const service = this.list('Service', CNPG_OPERATOR_NAMESPACE).map((s) => s.manifest).find((s) => {
      const a = s.metadata?.annotations ?? {};
      return s.metadata?.labels?.[PLUGIN_NAME_LABEL] === plugin
        && [PLUGIN_CLIENT_SECRET_ANNOTATION, PLUGIN_SERVER_SECRET_ANNOTATION, PLUGIN_PORT_ANNOTATION].every((k) => k in a);
    });
    if (!service) return unknown;
    const a = service.metadata.annotations;
    const secrets = [a[PLUGIN_SERVER_SECRET_ANNOTATION], a[PLUGIN_CLIENT_SECRET_ANNOTATION]] as string[];
    if (!secrets.every((n) => this.secretExists(CNPG_OPERATOR_NAMESPACE, n))) return unknown;
    const selector = (service.spec?.selector ?? {}) as Record<string, string>;
    const serving = this.list('Deployment', CNPG_OPERATOR_NAMESPACE).some((d) => {
      const labels = (d.manifest.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
      return Object.entries(selector).every(([k, v]) => labels[k] === v) && (d.status?.availableReplicas ?? 0) > 0;
    });
    return serving ? undefined : { phase: PHASE_FAILURE_PLUGIN, reason: pluginUnreachableReason(service, a[PLUGIN_PORT_ANNOTATION]) };
  }

  /**
   * The operator's plugin controller: a plugin Service whose TLS Secrets can be read is registered, with the event
   * "Successfully registered plugin %s at %s" (plugin_controller.go:257-285), whether or not its pods serve yet.
   */
  private reportRegistrations(): void {
    for (const s of this.list('Service', CNPG_OPERATOR_NAMESPACE).map((x) => x.manifest)) {
      const plugin = s.metadata?.labels?.[PLUGIN_NAME_LABEL] as string | undefined;
      if (!plugin || this.pluginProblem(plugin)?.phase === PHASE_UNKNOWN_PLUGIN) continue;
      if (this.registered.has(plugin)) continue;
      this.registered.add(plugin);
      const address = `${s.metadata.name}.${s.metadata.namespace}.svc:${s.metadata.annotations[PLUGIN_PORT_ANNOTATION]}`;
      this.log('cnpg', `Successfully registered plugin ${plugin} at ${address}`);
    }
  }

  /** Logs a message once per object and text. */
  private logOnce(o: LiveObject, source: string, message: string): void {
    o.logged ??= new Set<string>();
    if (o.logged.has(message)) return;
    o.logged.add(message);
    this.log(source, message);
  }

  /**
   * CNPG Database: reconciled by the instance manager of the primary once the Cluster has one
   * (internal/management/controller/database_controller.go:163-171 requeue until then). On success `SetAsReady`
   * (api/v1/database_funcs.go:40-44: applied true, message cleared, observedGeneration = generation); on failure
   * `SetAsFailed` (database_funcs.go:28-32: applied false and the error; observedGeneration is NOT updated),
   * called through markAsFailed (database_controller.go:190-203). CREATE DATABASE with a missing owner fails with
   * `while creating database %q: %w` (database_controller_sql.go:145-147) around PostgreSQL's own error.
   */
  private reconcileDatabase(o: LiveObject, now: number): void {
    const spec = o.manifest.spec ?? {};
    const cluster = this.get('Cluster', o.manifest.metadata.namespace, spec.cluster?.name);
    if (!cluster || cluster.status?.phase !== 'Cluster in healthy state') return;
    const missing = (this.faults.missingRoles ?? []).find((r) => r.cluster === spec.cluster.name && r.role === spec.owner);
    if (missing) {
      // PostgreSQL's message for an unknown role (SQLSTATE 42704 undefined_object), as pgx formats a PgError.
      o.status = { ...o.status, applied: false, message: `while creating database "${spec.name}": ERROR: role "${spec.owner}" does not exist (SQLSTATE 42704)` };
      return;
    }
    if (now >= o.createdAt) o.status = { applied: true, message: '', observedGeneration: o.manifest.metadata.generation };
  }

  /**
   * Deployment status: rolled out after ROLLOUT_SECONDS, or, when its pods never become ready, the Progressing
   * condition turns False with reason ProgressDeadlineExceeded after `progressDeadlineSeconds` (Kubernetes default
   * 600), which Argo CD reports as Degraded (gitops-engine/pkg/health/health_deployment.go:38-43).
   */
  private deploymentStatus(o: LiveObject, now: number): Obj {
    const { namespace, name } = o.manifest.metadata;
    const replicas = o.manifest.spec?.replicas ?? 1;
    // A pod that mounts a Secret that does not exist never starts (the kubelet's MountVolume error; Kubernetes'
    // wording, not taken from a source fetched here).
    const missingVolume = ((o.manifest.spec?.template?.spec?.volumes ?? []) as Obj[])
      .find((v) => v.secret?.secretName && !this.secretExists(namespace, v.secret.secretName));
    const stuck = (this.faults.neverReadyDeployments ?? []).find((d) => d.namespace === namespace && d.name === name)
      ?? (missingVolume ? { reason: `MountVolume.SetUp failed for volume "${missingVolume.name}" : secret "${missingVolume.secret.secretName}" not found` } : undefined);
    if (stuck) {
      const deadline = o.manifest.spec?.progressDeadlineSeconds ?? 600;
      const exceeded = now - o.createdAt >= deadline;
      return {
        updatedReplicas: replicas, availableReplicas: 0, unavailableReplicas: replicas, podMessage: stuck.reason,
        conditions: [{
          type: 'Progressing', status: exceeded ? 'False' : 'True', reason: exceeded ? 'ProgressDeadlineExceeded' : 'ReplicaSetUpdated',
          message: exceeded ? `ReplicaSet "${name}" has timed out progressing.` : `ReplicaSet "${name}" is progressing.`,
        }],
      };
    }
    if (!rolledOut(o, now)) return { updatedReplicas: replicas, availableReplicas: 0 };
    return { updatedReplicas: replicas, availableReplicas: replicas, readyReplicas: replicas };
  }

  /**
   * A wait Job (`wait-for-<cluster>`): its containers run `kubectl wait` for the Cluster's `Ready` condition and
   * for `status.applied=true` of each Database (lib/constructs/cnpg/wait-for-postgres-job.ts). It completes when
   * all hold; otherwise the Job controller fails it at `activeDeadlineSeconds` with reason DeadlineExceeded.
   * Any other Job completes after a short run.
   */
  private jobStatus(o: LiveObject, now: number): Obj {
    if (o.status?.conditions?.some((c: Obj) => c.status === 'True')) return o.status as Obj;
    const ns = o.manifest.metadata.namespace as string;
    const targets = waitTargets(o.manifest);
    const done = targets.every((t) => {
      const live = this.get(t.kind, ns, t.name);
      if (!live) return false;
      return t.kind === 'Cluster'
        ? live.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True')
        : live.status?.applied === true;
    });
    if (done && now - o.createdAt >= 5) return { succeeded: 1, conditions: [{ type: 'Complete', status: 'True', message: '' }] };
    const deadline = o.manifest.spec?.activeDeadlineSeconds as number | undefined;
    if (deadline !== undefined && now - o.createdAt >= deadline) {
      // The Job controller's condition for an exceeded activeDeadlineSeconds (kubernetes pkg/controller/job;
      // the text is Kubernetes', not taken from a source fetched here).
      return { failed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }] };
    }
    return { active: 1 };
  }
}

/**
 * A failed full-recovery pod's log: barman's output, then the restore subcommand's error (cnpg
 * internal/cmd/manager/instance/restore/restore.go:62-63) around the plugin's gRPC error.
 */
function recoveryLog(error: { message: string; log: string }): string {
  return `${error.log}; while restoring cluster: rpc error: code = Unknown desc = ${error.message}`;
}

/** A CNPG Cluster (not another group's kind named Cluster). */
function isCnpg(manifest: Obj): boolean {
  return String(manifest.apiVersion ?? '').startsWith('postgresql.cnpg.io/');
}

function rolledOut(o: LiveObject, now: number): boolean {
  return now - o.createdAt >= ROLLOUT_SECONDS;
}

/** What a wait Job's `kubectl wait` containers wait for, read from their arguments. */
export function waitTargets(job: Obj): { kind: 'Cluster' | 'Database'; name: string }[] {
  const containers = (job.spec?.template?.spec?.containers ?? []) as Obj[];
  return containers.flatMap((c) => {
    const args = (c.args ?? []) as string[];
    if (args[0] !== 'wait') return [];
    return args.filter((a) => /^(clusters|databases)\.postgresql\.cnpg\.io\//.test(a)).map((a) => {
      const [resource, name] = a.split('/');
      return { kind: resource.startsWith('clusters') ? 'Cluster' as const : 'Database' as const, name };
    });
  });
}

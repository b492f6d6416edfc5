/**
 * Scripted controllers: what CNPG, the Deployment and Job controllers write into status, as a function of how
 * long an object has existed and which faults the scenario injected. Behaviour and messages come from the
 * controllers' sources (cited); timings are illustrative, not measured.
 */

type Obj = Record<string, any>;

/** Faults a scenario injects into the simulated cluster and its surroundings. */
export interface Faults {
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
}

/** A live object and when it was created. */
export interface LiveObject {
  /** The last manifest applied (a re-apply replaces it). */
  manifest: Obj;
  readonly createdAt: number;
  /** Status the scripted controller set, recomputed every tick. */
  status?: Obj;
}

/** Seconds CNPG needs to set up the primary, then each replica (illustrative). */
export const CNPG_PRIMARY_SECONDS = 60;
export const CNPG_REPLICA_SECONDS = 30;
/** Seconds a healthy Deployment needs to roll out (illustrative). */
export const ROLLOUT_SECONDS = 30;

const key = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;

/** The simulated cluster: live objects and the controllers that move their status. */
export class World {
  private readonly objects = new Map<string, LiveObject>();

  constructor(public readonly faults: Faults) {}

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
    const live: LiveObject = { manifest: { ...manifest, metadata: { generation: 1, ...manifest.metadata } }, createdAt: now };
    this.objects.set(k, live);
    return live;
  }

  public get(kind: string, namespace: string | undefined, name: string): LiveObject | undefined {
    return this.objects.get(key(kind, namespace, name));
  }

  public secretExists(namespace: string, name: string): boolean {
    return !(this.faults.missingSecrets ?? []).includes(`${namespace}/${name}`);
  }

  /** The object with its current status, as `kubectl get -o json` would show it. */
  public view(live: LiveObject): Obj {
    return live.status === undefined ? live.manifest : { ...live.manifest, status: live.status };
  }

  /** Moves every controller forward to `now`. Order matters only within one tick: Clusters before Databases. */
  public reconcile(now: number): void {
    const all = [...this.objects.values()];
    for (const o of all) if (o.manifest.kind === 'Cluster') o.status = this.clusterStatus(o, now);
    for (const o of all) if (o.manifest.kind === 'Deployment') o.status = this.deploymentStatus(o, now);
    for (const o of all) if (o.manifest.kind === 'StatefulSet') o.status = rolledOut(o, now) ? { readyReplicas: 1, updatedReplicas: 1 } : {};
    for (const o of all) if (o.manifest.kind === 'Database') this.reconcileDatabase(o, now);
    for (const o of all) if (o.manifest.kind === 'Job') o.status = this.jobStatus(o, now);
  }

  /**
   * CNPG Cluster phases (cloudnative-pg v1.30.0 api/v1/cluster_types.go:705 "Setting up primary", :708 "Creating a
   * new replica", :730 "Cluster in healthy state", :766 "Invalid cluster definition") and the `Ready` condition
   * derived from the phase (pkg/resources/status/transactions.go:34-56: True with reason ClusterIsReady only in
   * the healthy phase). An invalid definition sets phase, phaseReason and Ready=False (api/v1/cluster_funcs.go:1652-1665,
   * `SetAdmissionError`). Instance bootstrap runs in-process; its failures would show as Pod restarts and phases,
   * never as a Job anything waits on.
   */
  private clusterStatus(o: LiveObject, now: number): Obj {
    const name = o.manifest.metadata.name as string;
    const notReady = { type: 'Ready', status: 'False', reason: 'ClusterIsNotReady', message: 'Cluster Is Not Ready' };
    const invalid = (this.faults.invalidClusters ?? []).find((c) => c.cluster === name);
    if (invalid) return { phase: 'Invalid cluster definition', phaseReason: invalid.reason, conditions: [notReady] };
    const age = now - o.createdAt;
    const instances = (o.manifest.spec?.instances as number | undefined) ?? 1;
    if (age < CNPG_PRIMARY_SECONDS) return { phase: 'Setting up primary', phaseReason: '', conditions: [notReady] };
    const replicasDone = Math.floor((age - CNPG_PRIMARY_SECONDS) / CNPG_REPLICA_SECONDS);
    if (replicasDone < instances - 1) {
      return { phase: 'Creating a new replica', phaseReason: `Creating replica ${name}-${replicasDone + 2}`, conditions: [notReady] };
    }
    return {
      phase: 'Cluster in healthy state', phaseReason: '', currentPrimary: `${name}-1`, targetPrimary: `${name}-1`,
      conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterIsReady', message: 'Cluster is Ready' }],
    };
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
    const stuck = (this.faults.neverReadyDeployments ?? []).find((d) => d.namespace === namespace && d.name === name);
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

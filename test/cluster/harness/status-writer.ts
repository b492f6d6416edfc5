// Stands in for the controllers the test control plane does not run, by writing the status they would write,
// field by field as their status contracts say, and nothing else:
//
// - Deployment, StatefulSet, DaemonSet: the fields `kubectl rollout status` reads
//   (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go at v0.30: observedGeneration, updated/ready/
//   available replicas, and for a StatefulSet currentRevision == updateRevision).
// - Job: a Job whose container is the kubectl image of the test's own release (every wait Job this project
//   generates) is EXECUTED: its args run on the host with the built kubectl, authenticated as the Job's
//   ServiceAccount through a TokenRequest token, so its RBAC and its command are real; the Job is then marked
//   Complete or Failed by the exit code, as the Job controller does (conditions Complete/Failed). Any other
//   Job (Forgejo's provisioning runs the Forgejo CLI) cannot run here: it is marked Complete and listed in
//   `stoodIn`, so a test can say so.
// - CNPG Cluster: condition Ready=True (reason ClusterIsReady) and phase "Cluster in healthy state"
//   (cloudnative-pg v1.30.0 api/v1/cluster_conditions.go, api/v1/cluster_types.go PhaseHealthy), and the image
//   that runs on the data directory, `status.image` and `status.pgDataImageInfo {image, majorVersion}`
//   (cluster_types.go ImageInfo): CNPG's webhook judges a major-version change against it
//   (internal/webhook/v1/cluster_webhook.go reads old.Status.PGDataImageInfo), so without it a downgrade would
//   pass unseen. And the bootstrap, once: CNPG creates the primary (initdb, or recovery from an externalClusters
//   entry) only while status.instances is 0 (internal/controller/cluster_controller.go: createPrimaryInstance when
//   `cluster.Status.Instances == 0`), and sets Initialized=True (reason BootstrapCompleted) once instances exist
//   (cluster_status.go); the writer records the method in `bootstraps` when it first writes instances, so a later
//   change of spec.bootstrap (which CNPG's webhook accepts: validateClusterChanges has no bootstrap check) bootstraps
//   nothing, as with CNPG.
// - CNPG Database: `applied: true` and `observedGeneration` once its Cluster is Ready (api/v1/database_funcs.go
//   SetAsReady); a fault turns it into SetAsFailed (`applied: false` and a message, no observedGeneration).
// - PersistentVolumeClaim: Bound with the requested capacity, when its StorageClass exists (the external
//   provisioner's part), so the API server's rules for bound claims (resize only, grow only when the class
//   allows expansion) apply.
import { ChildProcess, spawn } from 'child_process';
import { ControlPlane } from './control-plane';

const LISTS = {
  Deployment: '/apis/apps/v1/deployments',
  StatefulSet: '/apis/apps/v1/statefulsets',
  DaemonSet: '/apis/apps/v1/daemonsets',
  Job: '/apis/batch/v1/jobs',
  Cluster: '/apis/postgresql.cnpg.io/v1/clusters',
  Database: '/apis/postgresql.cnpg.io/v1/databases',
  PersistentVolumeClaim: '/api/v1/persistentvolumeclaims',
} as const;
type Kind = keyof typeof LISTS;

/** A status a test injects instead of success, keyed `Kind/namespace/name`. */
export type Fault =
  | { readonly kind: 'never-ready' }
  | { readonly kind: 'database-failed'; readonly message: string };

export interface StatusWriterOptions {
  /** How long an object stays not-ready after the writer first sees its generation, so waits really wait. */
  readonly readyAfterMs?: number;
  readonly faults?: Readonly<Record<string, Fault>>;
  /** More controller duties run on every pass (e.g. CNPG's operator injecting its webhooks' CA bundle). */
  readonly controllers?: ReadonlyArray<() => Promise<void>>;
}

export interface StatusEvent {
  readonly key: string;
  readonly what: string;
}

/** How a CNPG Cluster was bootstrapped, as its spec said when its first instance was created. */
export type ClusterBootstrap =
  | { readonly method: 'initdb'; readonly database?: string; readonly owner?: string }
  | { readonly method: 'recovery'; readonly source?: string; readonly serverName?: string }
  | { readonly method: 'pg_basebackup'; readonly source?: string };

/** The bootstrap method `spec.bootstrap` names (CNPG's defaulting makes it initdb when it names none). */
function bootstrapOf(spec: any): ClusterBootstrap {
  const b = spec.bootstrap ?? {};
  if (b.recovery !== undefined) {
    const source = b.recovery.source;
    const external = (spec.externalClusters ?? []).find((e: any) => e.name === source);
    return { method: 'recovery', source, serverName: external?.plugin?.parameters?.serverName };
  }
  if (b.pg_basebackup !== undefined) return { method: 'pg_basebackup', source: b.pg_basebackup.source };
  return { method: 'initdb', database: b.initdb?.database, owner: b.initdb?.owner };
}

function objectPath(kind: Kind, o: any): string {
  const base = LISTS[kind].replace(/\/[a-z]+$/, '');
  return `${base}/namespaces/${o.metadata.namespace}/${LISTS[kind].split('/').pop()}/${o.metadata.name}`;
}

export class StatusWriter {
  /** What was written, in order (`Kind/namespace/name`, and what). */
  readonly events: StatusEvent[] = [];
  /** Jobs that were marked Complete without running (their image cannot run on the host). */
  readonly stoodIn = new Set<string>();
  /** Output of each executed Job (`Job/namespace/name` → stdout and stderr), for failure messages. */
  readonly jobOutput = new Map<string, string>();
  /** Each CNPG Cluster's bootstrap (`namespace/name` → how), recorded once, when its first instances were written. */
  readonly bootstraps = new Map<string, ClusterBootstrap>();
  private readonly firstSeen = new Map<string, number>();
  private readonly running = new Map<string, ChildProcess>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private stopped = false;
  private lastError: unknown;

  constructor(private readonly plane: ControlPlane, private readonly options: StatusWriterOptions = {}) {}

  start(): this {
    this.timer = setInterval(() => void this.tick(), 250);
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    for (const child of this.running.values()) child.kill('SIGKILL');
    while (this.busy) await new Promise((r) => setTimeout(r, 20));
  }

  /** An error the last pass hit (an unexpected API answer), so a test does not pass over a broken writer. */
  get error(): unknown {
    return this.lastError;
  }

  private due(key: string, generation: number): boolean {
    const seen = `${key}@${generation}`;
    if (!this.firstSeen.has(seen)) this.firstSeen.set(seen, Date.now());
    return Date.now() - this.firstSeen.get(seen)! >= (this.options.readyAfterMs ?? 1000);
  }

  private fault(key: string): Fault | undefined {
    return this.options.faults?.[key];
  }

  private async tick(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      const clusters = await this.plane.kube.list(LISTS.Cluster);
      const readyClusters = new Set(clusters
        .filter((c) => (c.status?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True'))
        .map((c) => `${c.metadata.namespace}/${c.metadata.name}`));
      for (const duty of this.options.controllers ?? []) await duty();
      for (const kind of Object.keys(LISTS) as Kind[]) {
        const items = kind === 'Cluster' ? clusters : await this.plane.kube.list(LISTS[kind]);
        for (const o of items) {
          if (o.metadata.deletionTimestamp !== undefined) continue;
          await this.write(kind, o, readyClusters);
        }
      }
      this.lastError = undefined;
    } catch (e) {
      this.lastError = e;
    } finally {
      this.busy = false;
    }
  }

  private record(key: string, what: string): void {
    this.events.push({ key, what });
  }

  private async write(kind: Kind, o: any, readyClusters: Set<string>): Promise<void> {
    const key = `${kind}/${o.metadata.namespace}/${o.metadata.name}`;
    const generation = o.metadata.generation ?? 0;
    const fault = this.fault(key);
    const path = objectPath(kind, o);
    const status = o.status ?? {};
    switch (kind) {
      case 'Deployment': {
        if (status.observedGeneration === generation || fault?.kind === 'never-ready' || !this.due(key, generation)) return;
        const replicas = o.spec.replicas ?? 1;
        await this.plane.kube.patchStatus(path, {
          observedGeneration: generation, replicas, updatedReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas,
          conditions: [
            { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
            { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${o.metadata.name}" has successfully progressed.` },
          ],
        });
        return this.record(key, `available (generation ${generation})`);
      }
      case 'StatefulSet': {
        if (status.observedGeneration === generation || fault?.kind === 'never-ready' || !this.due(key, generation)) return;
        const replicas = o.spec.replicas ?? 1;
        const revision = `${o.metadata.name}-g${generation}`;
        await this.plane.kube.patchStatus(path, {
          observedGeneration: generation, replicas, readyReplicas: replicas, availableReplicas: replicas, currentReplicas: replicas,
          updatedReplicas: replicas, currentRevision: revision, updateRevision: revision,
        });
        return this.record(key, `ready (generation ${generation})`);
      }
      case 'DaemonSet': {
        if (status.observedGeneration === generation || fault?.kind === 'never-ready' || !this.due(key, generation)) return;
        await this.plane.kube.patchStatus(path, {
          observedGeneration: generation, desiredNumberScheduled: 1, currentNumberScheduled: 1, updatedNumberScheduled: 1,
          numberReady: 1, numberAvailable: 1, numberMisscheduled: 0,
        });
        return this.record(key, `ready (generation ${generation})`);
      }
      case 'Cluster': {
        const ready = (status.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True');
        if (ready || fault?.kind === 'never-ready' || !this.due(key, generation)) return;
        const instances = o.spec.instances ?? 1;
        // The mutating webhook has written CNPG's default image into spec.imageName when the config left it out.
        const image: string = o.spec.imageName;
        const majorVersion = Number(/:(\d+)/.exec(image)?.[1]);
        const bootstrap = (status.instances ?? 0) === 0 ? bootstrapOf(o.spec) : undefined;
        const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        const initialized = (status.conditions ?? []).find((x: any) => x.type === 'Initialized' && x.status === 'True')
          ?? { type: 'Initialized', status: 'True', reason: 'BootstrapCompleted', message: 'Cluster has been bootstrapped', lastTransitionTime: now };
        await this.plane.kube.patchStatus(path, {
          phase: 'Cluster in healthy state', instances, readyInstances: instances, image,
          ...(Number.isInteger(majorVersion) ? { pgDataImageInfo: { image, majorVersion } } : {}),
          conditions: [
            initialized,
            { type: 'Ready', status: 'True', reason: 'ClusterIsReady', message: 'Cluster is Ready', lastTransitionTime: now },
          ],
        });
        if (bootstrap !== undefined) {
          this.bootstraps.set(`${o.metadata.namespace}/${o.metadata.name}`, bootstrap);
          this.record(key, `bootstrapped: ${JSON.stringify(bootstrap)}`);
        }
        return this.record(key, 'Ready');
      }
      case 'Database': {
        if (status.applied !== undefined && (status.observedGeneration === generation || status.applied === false)) return;
        if (!readyClusters.has(`${o.metadata.namespace}/${o.spec.cluster?.name}`) || !this.due(key, generation)) return;
        if (fault?.kind === 'database-failed') {
          await this.plane.kube.patchStatus(path, { applied: false, message: fault.message });
          return this.record(key, `failed: ${fault.message}`);
        }
        if (fault?.kind === 'never-ready') return;
        await this.plane.kube.patchStatus(path, { applied: true, observedGeneration: generation });
        return this.record(key, `applied (generation ${generation})`);
      }
      case 'PersistentVolumeClaim': {
        const requested = o.spec.resources?.requests?.storage;
        if (status.phase === 'Bound' && status.capacity?.storage === requested) return;
        const className = o.spec.storageClassName;
        if (className === undefined || (await this.plane.kube.get(`/apis/storage.k8s.io/v1/storageclasses/${className}`)) === undefined) return;
        await this.plane.kube.patchStatus(path, { phase: 'Bound', accessModes: o.spec.accessModes, capacity: { storage: requested } });
        return this.record(key, `Bound (${requested})`);
      }
      case 'Job':
        return this.job(key, path, o);
    }
  }

  private async job(key: string, path: string, o: any): Promise<void> {
    const status = o.status ?? {};
    const runKey = `${key}@${o.metadata.uid}`;
    if ((status.conditions ?? []).some((c: any) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')) return;
    if (this.running.has(runKey) || this.firstSeen.has(runKey)) return;
    this.firstSeen.set(runKey, Date.now());
    const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const startTime = now();
    await this.plane.kube.patchStatus(path, { startTime, active: 1 });
    const container = o.spec.template.spec.containers[0];
    const kubectlImage = `registry.k8s.io/kubectl:${this.plane.binaries.version}`;
    const runsKubectl = container.image === kubectlImage && (container.command === undefined || container.command[0] === 'kubectl');
    if (!runsKubectl) {
      this.stoodIn.add(key);
      await this.plane.kube.patchStatus(path, {
        active: 0, succeeded: 1, completionTime: now(), startTime,
        conditions: [{ type: 'Complete', status: 'True', lastProbeTime: now(), lastTransitionTime: now() }],
      });
      return this.record(key, `Complete (stood in: ${container.image} cannot run on the host)`);
    }
    const serviceAccount = o.spec.template.spec.serviceAccountName ?? 'default';
    const kubeconfig = await this.plane.serviceAccountKubeconfig(o.metadata.namespace, serviceAccount);
    const args = [...(container.command ?? ['kubectl']).slice(1), ...(container.args ?? [])];
    const child = spawn(this.plane.binaries.kubectl, args, {
      env: { PATH: process.env.PATH, HOME: this.plane.dir, KUBECONFIG: kubeconfig, ...Object.fromEntries((container.env ?? []).filter((e: any) => e.value !== undefined && e.name !== 'HOME').map((e: any) => [e.name, e.value])) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.running.set(runKey, child);
    let output = '';
    child.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
    child.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
    this.record(key, `running kubectl ${args.join(' ')} as ServiceAccount ${o.metadata.namespace}/${serviceAccount}`);
    child.once('exit', (code) => {
      this.running.delete(runKey);
      this.jobOutput.set(key, output);
      if (this.stopped) return;
      const succeeded = code === 0;
      const condition = succeeded
        ? { type: 'Complete', status: 'True', lastProbeTime: now(), lastTransitionTime: now() }
        : { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: now(), lastTransitionTime: now() };
      this.plane.kube.patchStatus(path, {
        active: 0, startTime, ...(succeeded ? { succeeded: 1, completionTime: now() } : { failed: 1 }), conditions: [condition],
      }).then(
        () => this.record(key, `${condition.type} (exit ${code}): ${output.trim().split('\n').pop() ?? ''}`),
        (e) => { this.lastError = e; },
      );
    });
  }
}

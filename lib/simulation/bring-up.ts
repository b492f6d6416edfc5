import { parseAllDocuments } from 'yaml';
import { ApiEndpointsWithinPrecondition, describeWait, StepWait } from '../constructs/bootstrap/waits';
import { OutputTree } from '../output/output-tree';
import { RenderedStep } from '../output/render-steps';
import { builtinCnpgClusterHealth, builtinRolloutHealth, deploymentHealth, HealthEvaluator, HealthResult, HealthStatusCode, isWorse, jobHealth } from './health';
import { isHook, retryDelay, retryPolicy, runningMessage, sortTasks, syncWave, TaskOutcome, taskOutcome } from './argocd-sync';
import { remoteManifestObjects, Surroundings } from './barman-cloud';
import { applicationObjects, RepositoryInput } from './repository';
import { Faults, LiveObject, World } from './controllers';
import { SimClock, TimelineEvent } from './timeline';

type Obj = Record<string, any>;

/** The synthesized output the simulation runs: the file tree, the repository files outside it, the planned Phase-0 steps. */
export interface SimulationInput extends RepositoryInput {
  readonly steps: readonly RenderedStep[];
}

/** Options of `simulateBringUp`. */
export interface SimulationOptions {
  readonly faults?: Faults;
  /**
   * What object storage holds before the bring-up: the archives a lost homelab left behind.
   * @default - nothing: a first install
   */
  readonly surroundings?: Surroundings;
  /**
   * A World a previous bring-up left running: this one re-runs the runbook against it, continuing its clock, with
   * this run's `faults` (a re-run of bootstrap.sh on a live cluster). `surroundings` are the World's own.
   * @default - a bare cluster
   */
  readonly world?: World;
  readonly evaluator: HealthEvaluator;
  /**
   * Simulated seconds after which a run that has not finished is reported as stalled.
   * @default 3600 (1 hour)
   */
  readonly horizonSeconds?: number;
  /** @default 5 */
  readonly tickSeconds?: number;
}

/** How a bring-up ended. */
export interface BringUpOutcome {
  /** Healthy: converged. Failed / Degraded: ended with a cause. Stalled: still waiting at the horizon. */
  readonly state: 'Healthy' | 'Failed' | 'Degraded' | 'Stalled';
  /** Where it ended: `runbook step 3 postgres-forgejo-db` or `argocd/root`. */
  readonly where: string;
  readonly message: string;
  readonly at: number;
  readonly timeline: readonly TimelineEvent[];
  /**
   * The final state of the objects that explain a failure, as `kubectl get` and the Jobs' logs show them: every CNPG
   * Cluster that is not Ready or whose WAL archiving fails. Empty when there is none.
   */
  readonly finalState: readonly string[];
  /** The World as the run left it, for a second bring-up on the same cluster. */
  readonly world: World;
  /**
   * Each Application's health at the end as Argo CD computes it (`status.health`: its worst resource, with that
   * resource's message), by name: a paused canary's Application is Suspended here while the root counts it as done.
   */
  readonly applications: Readonly<Record<string, HealthResult>>;
}

const CM_HEALTH = 'resource.customizations.health.';

/** The health-check Lua scripts of the generated argocd-cm patch, keyed `<group>_<kind>`. */
export function generatedHealthChecks(tree: OutputTree): Map<string, string> {
  const checks = new Map<string, string>();
  for (const [file, text] of tree) {
    if (!/^bootstrap\/[^/]*argocd-install[^/]*\//.test(file) || !file.endsWith('.yaml')) continue;
    for (const doc of docs(text)) {
      if (doc.kind !== 'ConfigMap' || doc.metadata?.name !== 'argocd-cm') continue;
      for (const [k, v] of Object.entries((doc.data ?? {}) as Record<string, string>)) {
        if (k.startsWith(CM_HEALTH)) checks.set(k.slice(CM_HEALTH.length), v);
      }
    }
  }
  return checks;
}

/** A key of the generated argocd-cmd-params-cm patch, or undefined when the install does not set it. */
export function cmdParam(tree: OutputTree, key: string): string | undefined {
  for (const [file, text] of tree) {
    if (!file.startsWith('bootstrap/') || !file.endsWith('.yaml')) continue;
    for (const doc of docs(text)) {
      const v = doc.kind === 'ConfigMap' && doc.metadata?.name === 'argocd-cmd-params-cm' ? doc.data?.[key] : undefined;
      if (v !== undefined) return String(v);
    }
  }
  return undefined;
}

/** `controller.sync.timeout.seconds` of a generated argocd-cmd-params-cm, else 0: no timeout. */
export function controllerSyncTimeout(tree: OutputTree): number {
  // argocd-application-controller reads it through ARGOCD_APPLICATION_CONTROLLER_SYNC_TIMEOUT, default 0 = none
  // (cmd/argocd-application-controller/commands/argocd_application_controller.go:280).
  return Number(cmdParam(tree, 'controller.sync.timeout.seconds') ?? 0);
}

function docs(text: string): Obj[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Obj).filter((d) => d !== null && typeof d === 'object');
}

/** An Application's state in the simulation. */
interface AppState {
  readonly manifest: Obj;
  readonly name: string;
  /** Target objects, when the app's content is known from the output; undefined for opaque content. */
  readonly targets: Obj[];
  comparisonError?: string;
  op?: {
    phase: 'Running' | 'Succeeded' | 'Failed';
    message: string;
    startedAt: number;
    retryCount: number;
    nextRetryAt?: number;
    applied: Set<string>;
    results: Map<string, { outcome: TaskOutcome; message: string }>;
    final: boolean;
  };
  live: Set<string>;
}

/** Runs Phase 0 and then Argo CD until the bring-up converges, fails, or reaches the horizon. */
export function simulateBringUp(input: SimulationInput, options: SimulationOptions): BringUpOutcome {
  return new BringUp(input, options).run();
}

class BringUp {
  private readonly clock: SimClock;
  private readonly events: TimelineEvent[] = [];
  private readonly world: World;
  private readonly checks: Map<string, string>;
  private readonly syncTimeout: number;
  private readonly healthPersisted: boolean;
  private readonly horizon: number;
  private readonly tick: number;
  private readonly apps = new Map<string, AppState>();

  constructor(private readonly input: SimulationInput, private readonly options: SimulationOptions) {
    this.world = options.world ?? new World(options.faults ?? {}, options.surroundings);
    if (options.world) this.world.faults = options.faults ?? {};
    this.clock = new SimClock(this.world.now);
    this.world.log = (source, message) => this.log(source, message);
    this.checks = generatedHealthChecks(input.tree);
    this.syncTimeout = controllerSyncTimeout(input.tree);
    this.healthPersisted = cmdParam(input.tree, 'controller.resource.health.persist') === 'true';
    this.horizon = this.clock.now + (options.horizonSeconds ?? 3600);
    this.tick = options.tickSeconds ?? 5;
  }

  private log(source: string, message: string): void {
    this.events.push({ at: this.clock.now, source, message });
  }

  private end(state: BringUpOutcome['state'], where: string, message: string): BringUpOutcome {
    this.log(where, `${state}: ${message}`);
    const applications = Object.fromEntries([...this.apps.keys()].sort().map((name) => [name, this.appHealth(this.apps.get(name) as AppState)]));
    const finalState = this.world.problems();
    return { state, where, message, at: this.clock.now, timeline: [...this.events], finalState, world: this.world, applications };
  }

  private advance(): void {
    this.clock.advance(this.tick);
    this.world.reconcile(this.clock.now);
  }

  public run(): BringUpOutcome {
    const failed = this.runbook();
    if (failed) return failed;
    return this.argocd();
  }

  // ---------------------------------------------------------------------------------------------- Phase 0

  /** Applies each step in the synthesized order, then performs its waits, as dist/bootstrap/bootstrap.sh does. */
  private runbook(): BringUpOutcome | undefined {
    for (const p of this.input.steps) {
      const where = `runbook step ${p.index} ${p.step.stepName}`;
      for (const pre of p.step.preconditions) {
        if (pre.kind === 'secret-exists' && !this.world.secretExists(pre.namespace, pre.name)) {
          return this.end('Failed', where, `Secret ${pre.namespace}/${pre.name} is missing: ${pre.hint}`);
        }
        if (pre.kind === 'api-endpoints-within') {
          const problem = apiEndpointsProblem(pre, this.world.faults.apiServerEndpoints);
          if (problem !== undefined) return this.end('Failed', where, problem);
        }
      }
      // bootstrap.sh deletes a wait Job before applying it again (delete_job), so a re-run waits afresh.
      for (const w of p.step.waits) if (w.kind === 'job-complete') this.world.delete('Job', w.namespace, w.job);
      for (const obj of p.objects) this.world.apply(obj, this.clock.now);
      for (const url of p.step.kustomization?.remoteResources ?? []) {
        for (const obj of remoteManifestObjects(url)) this.world.apply(obj, this.clock.now);
      }
      for (const w of p.step.waits) this.impliedObjects(w);
      const release = p.step.helmRelease;
      // One verb for every step, so a timeline reads (and is searched) the same whatever the step is.
      this.log('runbook', `step ${p.index} ${p.step.stepName} applied (` + (release
        ? `helm upgrade --install of ${release.namespace}/${release.releaseName}, chart ${release.chart} ${release.version})`
        : `${p.objects.length} objects${p.step.kustomization ? ' + remote manifests' : ''})`));
      this.world.reconcile(this.clock.now);
      for (const w of p.step.waits) {
        const failure = this.wait(w);
        if (failure) return this.end('Failed', where, `${describeWait(w)}: ${failure}`);
        this.log('runbook', `passed: ${describeWait(w)}`);
      }
    }
    return undefined;
  }

  /** Objects a wait names that come from a remote manifest (the CNPG and Argo CD releases). */
  private impliedObjects(w: StepWait): void {
    if (w.kind === 'rollout' && !this.world.get('Deployment', w.namespace, w.deployment)) {
      this.world.apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: w.namespace, name: w.deployment }, spec: { replicas: 1 } }, this.clock.now);
    }
    if (w.kind === 'statefulset-rollout' && !this.world.get('StatefulSet', w.namespace, w.statefulSet)) {
      this.world.apply({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { namespace: w.namespace, name: w.statefulSet } }, this.clock.now);
    }
  }

  /** Polls one wait until it passes (undefined) or fails (the runbook's message). */
  private wait(w: StepWait): string | undefined {
    const start = this.clock.now;
    for (;;) {
      const r = this.check(w);
      if (r === true) return undefined;
      if (typeof r === 'string') return r;
      if (this.clock.now - start >= w.timeoutSeconds) return `not done within ${w.timeoutSeconds}s`;
      this.advance();
    }
  }

  /** true: passed; a string: failed with that message; false: keep waiting. */
  private check(w: StepWait): boolean | string {
    switch (w.kind) {
      case 'crds-established':
      case 'webhook-serving':
        return true;
      // The CNI and the storage (Helm releases) are not modelled: the scenarios start from a cluster whose nodes
      // get a pod network and whose PVCs get volumes once these waits pass.
      case 'daemonset-rollout':
      case 'object-exists':
        return true;
      case 'statefulset-rollout':
        return this.world.get('StatefulSet', w.namespace, w.statefulSet)?.status?.readyReplicas === 1;
      case 'rollout': {
        const live = this.world.get('Deployment', w.namespace, w.deployment);
        if (!live) return false;
        const h = deploymentHealth(this.world.view(live));
        // `kubectl rollout status` gives up when the Progressing condition reports ProgressDeadlineExceeded;
        // the runbook then prints the conditions (dist/bootstrap/bootstrap.sh wait_rollout).
        if (h.status === 'Degraded') return `${h.message}; ${conditionsLine(live)}; pods: ${live.status?.podMessage ?? ''}`;
        return h.status === 'Healthy';
      }
      case 'condition': {
        const [resource, name] = w.resource.split('/');
        const live = this.world.get(kindOfResource(resource), w.namespace, name);
        return live?.status?.conditions?.some((c: Obj) => c.type === w.condition && c.status === 'True') ?? false;
      }
      case 'job-complete': {
        const live = this.world.get('Job', w.namespace, w.job);
        if (!live) return false;
        const h = jobHealth(this.world.view(live));
        if (h.status === 'Healthy') return true;
        const value = (resourceName: string, path: string) => {
          const [resource, name] = resourceName.split('/');
          const o = this.world.get(kindOfResource(resource), w.namespace, name);
          return o ? jsonPath(this.world.view(o), path) : undefined;
        };
        // wait_job prints why it failed, then each watched object's message path.
        const watched = () => w.watched.map((x) => `${x.resource}: ${value(x.resource, x.messagePath) ?? '(not found)'}`);
        // A watched object whose controller gave up (wait_job --fail-when) fails the wait before the Job's deadline.
        for (const f of w.failWhen ?? []) {
          const v = value(f.resource, f.jsonPath);
          if (v !== undefined && v !== '' && f.values.includes(v)) return [`${f.resource} is '${v}'`, ...watched()].join('; ');
        }
        if (h.status !== 'Degraded') return false;
        return [`the Job failed: ${h.message}`, ...watched()].join('; ');
      }
    }
  }

  // ---------------------------------------------------------------------------------------------- Argo CD

  private argocd(): BringUpOutcome {
    const root = this.world.get('Application', 'argocd', 'root');
    if (!root) return this.end('Failed', 'argocd', 'Phase 0 applied no root Application');
    // The root as the last runbook step left it (after the cutover: flipped from the GitHub seed to Forgejo).
    const source = root.manifest.spec?.source ?? {};
    this.log('argocd/root', `reads ${source.repoURL ?? '?'} ${source.path ?? ''} (generation ${root.manifest.metadata?.generation ?? 1})`);
    this.addApp(root.manifest);
    const rootState = this.apps.get('root') as AppState;
    let settledSince: number | undefined;
    while (this.clock.now < this.horizon) {
      this.advance();
      for (const name of [...this.apps.keys()].sort()) this.reconcileApp(this.apps.get(name) as AppState);
      const op = rootState.op;
      if (op?.phase === 'Failed' && op.final) {
        return this.end('Failed', 'argocd/root', `${op.message}${this.failedResults(rootState)}`);
      }
      if (op?.phase === 'Succeeded') {
        const h = this.appHealth(rootState);
        // Healthy only once nothing moves on its own: a canary at a timed pause is Suspended, which the root counts
        // as done, but it goes on to its analysis, and may yet abort.
        if (h.status === 'Healthy' && this.world.settling().length === 0) return this.end('Healthy', 'argocd/root', 'every Application synced and healthy');
        if (h.status === 'Degraded') {
          settledSince ??= this.clock.now;
          if (this.clock.now - settledSince >= 300) return this.end('Degraded', 'argocd/root', h.message);
        }
      }
    }
    const moving = this.world.settling();
    return this.end('Stalled', 'argocd/root', `${rootState.op?.phase ?? 'no operation'}: ${rootState.op?.message ?? ''}` + (moving.length > 0 ? `; still moving: ${moving.join(', ')}` : ''));
  }

  private failedResults(app: AppState): string {
    const lines = [...(app.op?.results ?? new Map()).entries()].filter(([, r]) => r.outcome === 'failed').map(([k, r]) => `${k}: ${r.message}`);
    return lines.length > 0 ? ` [${lines.join('; ')}]` : '';
  }

  private addApp(manifest: Obj): void {
    const name = manifest.metadata.name as string;
    if (this.apps.has(name)) return;
    this.apps.set(name, { manifest, name, targets: this.targetsOf(manifest), live: new Set() });
  }

  /**
   * The objects an Application renders, when the repository holds them (the generated tree, or `repoFiles` outside
   * it); the root renders the apps folder. See lib/simulation/repository.ts for how a source path becomes objects.
   */
  private targetsOf(app: Obj): Obj[] {
    const objs = applicationObjects(this.input, app);
    if (objs.length > 0) return objs;
    // Content outside the generated output (a chart, a hand-written folder): one workload standing for it.
    return [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: app.metadata.name, namespace: app.spec?.destination?.namespace }, spec: { replicas: 1 } }];
  }

  /** Manifest generation: a failure is the ComparisonError condition (controller/state.go:377, :698-699). */
  private compare(app: AppState): string | undefined {
    const sources = (app.manifest.spec?.sources ?? [app.manifest.spec?.source]) as Obj[];
    for (const [i, s] of sources.entries()) {
      const err = this.generate(s);
      // The repo server's error reaches the controller as a gRPC status.
      if (err) return `Failed to load target state: failed to generate manifest for source ${i + 1} of ${sources.length}: rpc error: code = Unknown desc = ${err}`;
    }
    return undefined;
  }

  private generate(source: Obj): string | undefined {
    if (source.chart !== undefined) {
      const down = (this.world.faults.unreachableChartRepos ?? []).find((r) => r.url === source.repoURL);
      // util/helm/client.go:246-250: `helm fetch` failed, wrapped as "error fetching chart: %w".
      if (down) return `error fetching chart: ${down.message}`;
    }
    if (source.plugin?.name === 'sops' && !this.world.secretExists('argocd', 'sops-age')) {
      // The sidecar's generate command fails: cmpserver/plugin/plugin.go:228-231 wraps it as "error generating
      // manifests: %w", reposerver/repository/repository.go:2354 as "error generating manifests in cmp: %w"; the
      // innermost text is sops's own error when no age identity can decrypt the data key.
      return 'error generating manifests in cmp: rpc error: code = Unknown desc = error generating manifests: '
        + '`sh -c` failed exit status 1: Failed to get the data key required to decrypt the SOPS file.';
    }
    return undefined;
  }

  private reconcileApp(app: AppState): void {
    const now = this.clock.now;
    const src = `argocd/${app.name}`;
    const cmp = this.compare(app);
    if (cmp !== app.comparisonError) {
      app.comparisonError = cmp;
      if (cmp) this.log(src, `ComparisonError: ${cmp}`);
    }
    // Auto-sync only from OutOfSync: with a comparison error the sync status is Unknown and no sync starts
    // (controller/state.go:1011-1013; controller/appcontroller.go:2344-2349).
    if (app.op === undefined) {
      if (cmp) return;
      app.op = { phase: 'Running', message: '', startedAt: now, retryCount: 0, applied: new Set(), results: new Map(), final: false };
      this.log(src, 'auto-sync started');
    }
    const op = app.op;
    if (op.phase !== 'Running') return;
    if (op.nextRetryAt !== undefined) {
      if (now < op.nextRetryAt) return;
      op.nextRetryAt = undefined;
      op.applied = new Set();
      op.results = new Map();
      op.message = `Retrying operation. Attempt #${op.retryCount}`; // appcontroller.go:1575
      this.log(src, op.message);
    }
    // The controller's sync timeout terminates the operation (appcontroller.go:1542-1547, sync_context.go:742),
    // and a terminated operation is not retried (appcontroller.go:1620, :1634-1636).
    if (this.syncTimeout > 0 && now > op.startedAt + this.syncTimeout) {
      this.finish(app, 'Operation terminated, triggered by controller sync timeout', false);
      return;
    }
    this.syncStep(app);
  }

  /** One `syncContext.Sync()` call (sync_context.go:540-720). */
  private syncStep(app: AppState): void {
    const op = app.op!;
    const tasks = sortTasks(app.targets);
    const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    // Running tasks: update their outcome from the live object's health.
    const running = tasks.filter((t) => op.applied.has(key(t)) && op.results.get(key(t))?.outcome === 'running');
    for (const t of running) {
      const h = this.health(t);
      const outcome = taskOutcome(t, h);
      op.results.set(key(t), { outcome, message: h?.message ?? '' });
    }
    const stillRunning = running.filter((t) => op.results.get(key(t))?.outcome === 'running');
    if (stillRunning.length > 0) {
      op.message = runningMessage(stillRunning);
      return;
    }
    if ([...op.results.values()].some((r) => r.outcome === 'failed')) {
      this.finish(app, 'one or more synchronization tasks completed unsuccessfully', true); // sync_context.go:636-639
      return;
    }
    const pending = tasks.filter((t) => !op.applied.has(key(t)));
    if (pending.length === 0) {
      this.finish(app, 'successfully synced (no more tasks)', true);
      return;
    }
    const wave = syncWave(pending[0]);
    const waveTasks = pending.filter((t) => syncWave(t) === wave);
    const rejected = (this.world.faults.rejectedApplies ?? []).find((r) => r.app === app.name);
    if (rejected) {
      // sync_context.go:687-699 and :906-922: "one or more objects failed to apply, reason: <task messages>".
      this.finish(app, `one or more objects failed to apply, reason: ${rejected.message}`, true);
      return;
    }
    for (const t of waveTasks) {
      op.applied.add(key(t));
      app.live.add(key(t));
      op.results.set(key(t), { outcome: 'running', message: '' });
      const live = this.world.apply(t, this.clock.now);
      if (t.kind === 'Application' && t.apiVersion?.startsWith('argoproj.io/')) this.addApp(live.manifest);
    }
    this.log(`argocd/${app.name}`, `wave ${wave}: applied ${waveTasks.map((t) => `${t.kind}/${t.metadata.name}`).join(', ')}`);
    if (pending.length === waveTasks.length && !waveTasks.some(isHook)) {
      // The final wave succeeds once applied, even if its objects degrade later (sync_context.go:703-711).
      this.finish(app, 'successfully synced (all tasks run)', true);
      return;
    }
    op.message = runningMessage(waveTasks);
  }

  /** Ends an operation; a failed one is retried per `syncPolicy.retry` (appcontroller.go:1619-1640). */
  private finish(app: AppState, message: string, retryable: boolean): void {
    const op = app.op!;
    const src = `argocd/${app.name}`;
    if (message.startsWith('successfully')) {
      op.phase = 'Succeeded';
      op.message = message;
      op.final = true;
      this.log(src, `sync Succeeded: ${message}`);
      return;
    }
    const policy = retryPolicy(app.manifest);
    if (retryable && op.retryCount < policy.limit) {
      const delay = retryDelay(policy, op.retryCount);
      op.retryCount += 1;
      op.nextRetryAt = this.clock.now + delay;
      op.message = `${message}. Retrying attempt #${op.retryCount} in ${delay}s.`;
      this.log(src, `sync failed: ${op.message}${this.failedResults(app)}`);
      return;
    }
    op.phase = 'Failed';
    op.final = true;
    op.message = op.retryCount > 0 ? `${message} (retried ${op.retryCount} times).` : message;
    this.log(src, `sync Failed: ${op.message}${this.failedResults(app)}`);
  }

  /** Health of a live object: a generated Lua check first, then the built-in checks modelled here. */
  private health(target: Obj): HealthResult | undefined {
    const live = this.world.get(target.kind, target.metadata.namespace, target.metadata.name);
    if (!live) return { status: 'Missing', message: '' };
    const group = String(target.apiVersion).includes('/') ? String(target.apiVersion).split('/')[0] : '';
    const lua = this.checks.get(`${group}_${target.kind}`);
    if (target.kind === 'Application' && group === 'argoproj.io') {
      const child = this.apps.get(target.metadata.name);
      // No check configured: Argo CD has no built-in Application health since 1.8, so a child counts at once.
      return lua && child ? this.options.evaluator.evaluate('Application', lua, this.applicationView(child, live)) : undefined;
    }
    const obj = this.world.view(live);
    if (lua) return this.options.evaluator.evaluate(target.kind, lua, obj);
    if (target.kind === 'Deployment') return deploymentHealth(obj);
    if (target.kind === 'Job') return jobHealth(obj);
    if (target.kind === 'Cluster' && group === 'postgresql.cnpg.io') return builtinCnpgClusterHealth(obj);
    if (target.kind === 'Rollout' && group === 'argoproj.io') return builtinRolloutHealth(obj);
    return undefined;
  }

  /**
   * An Application's health: the worst of its resources, ignoring resources not yet live and child
   * Applications that are Missing or Unknown (controller/health.go:20-92).
   */
  private appHealth(app: AppState): HealthResult {
    let status: HealthStatusCode = 'Healthy';
    let message = '';
    for (const t of app.targets) {
      const k = `${t.kind}/${t.metadata.namespace ?? ''}/${t.metadata.name}`;
      if (!app.live.has(k)) continue;
      const h = this.health(t);
      if (!h) continue;
      if (t.kind === 'Application' && (h.status === 'Missing' || h.status === 'Unknown')) continue;
      if (isWorse(status, h.status)) {
        status = h.status;
        message = `${t.kind}/${t.metadata.name}: ${h.message}`;
      }
    }
    if (app.targets.length > 0 && app.live.size === 0) status = 'Missing';
    return { status, message };
  }

  /** A child Application as the root's health check reads it: `status.sync`, `status.health`, the operation. */
  private applicationView(app: AppState, live: LiveObject): Obj {
    const sync = app.comparisonError ? 'Unknown' : app.targets.every((t) => app.live.has(`${t.kind}/${t.metadata.namespace ?? ''}/${t.metadata.name}`)) ? 'Synced' : 'OutOfSync';
    // Once compared, `sync.comparedTo` holds the spec it was computed for (Argo CD `controller/state.go`,
    // CompareAppState: `comparedTo` = the app's source(s) and destination); the health check waits without it.
    const spec = live.manifest.spec ?? {};
    const comparedTo: Obj = { destination: spec.destination, ...(spec.sources ? { sources: spec.sources } : { source: spec.source }) };
    const status: Obj = { sync: { status: sync, comparedTo }, health: { status: this.appHealth(app).status } };
    // With controller.resource.health.persist (the generated install sets it), each resource's health is in
    // status.resources (v1alpha1 ResourceStatus: group, version, kind, namespace, name, status, health).
    if (this.healthPersisted) {
      status.resources = app.targets.filter((t) => app.live.has(`${t.kind}/${t.metadata.namespace ?? ''}/${t.metadata.name}`)).map((t) => {
        const h = this.health(t);
        return {
          kind: t.kind, namespace: t.metadata.namespace, name: t.metadata.name, status: 'Synced',
          ...(h ? { health: { status: h.status, ...(h.message ? { message: h.message } : {}) } } : {}),
        };
      });
    }
    if (app.comparisonError) status.conditions = [{ type: 'ComparisonError', message: app.comparisonError }];
    if (app.op) status.operationState = { phase: app.op.phase === 'Running' && app.op.nextRetryAt !== undefined ? 'Running' : app.op.phase, message: app.op.message };
    return { ...live.manifest, status };
  }
}

function conditionsLine(live: LiveObject): string {
  return ((live.status?.conditions ?? []) as Obj[]).map((c) => `${c.type}=${c.status}: ${c.message}`).join(', ');
}

function kindOfResource(resource: string): string {
  if (resource.startsWith('clusters.')) return 'Cluster';
  if (resource.startsWith('databases.')) return 'Database';
  if (resource.startsWith('deployments')) return 'Deployment';
  return resource;
}

/** The few JSONPath forms the waits use: `{.a.b}`. */
function jsonPath(obj: Obj, path: string): string {
  const m = /^\{\.(.*)\}$/.exec(path);
  if (!m) return '';
  const v = m[1].split('.').reduce<any>((o, k) => (o === undefined ? undefined : o[k]), obj);
  return v === undefined ? '' : String(v);
}

/** A dotted IPv4 address as a number, or undefined when it is none. */
function ipv4Number(address: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (!m || m.slice(1).some((o) => Number(o) > 255)) return undefined;
  return m.slice(1).reduce((n, o) => n * 256 + Number(o), 0);
}

/**
 * What bootstrap.sh's check_api_endpoints stops on (lib/output/render-runbook.ts), for the API server at `actual`:
 * an IPv6 address, one outside every CIDR, another port. Undefined when it passes; by default the simulated API server
 * is where the config says.
 */
function apiEndpointsProblem(pre: ApiEndpointsWithinPrecondition, actual: Faults['apiServerEndpoints']): string | undefined {
  if (actual === undefined) return undefined;
  const inside = (address: number) => pre.cidrs.some((cidr) => {
    const [network, bits] = cidr.split('/');
    const size = 2 ** (32 - Number(bits));
    return Math.floor(address / size) === Math.floor(ipv4Number(network)! / size);
  });
  const ipv6 = actual.addresses.filter((a) => a.includes(':'));
  if (ipv6.length > 0) return `the API server has IPv6 addresses (${ipv6.join(', ')}), but ${pre.cidrsSetting} holds IPv4 CIDRs only`;
  const outside = actual.addresses.filter((a) => { const n = ipv4Number(a); return n === undefined || !inside(n); });
  const problems = [
    ...(outside.length > 0 ? [`API server addresses outside ${pre.cidrsSetting} (${pre.cidrs.join(' ')}): ${outside.join(', ')}`] : []),
    ...(actual.port !== pre.port ? [`the API server serves on port ${actual.port}, but ${pre.portSetting} is ${pre.port}`] : []),
  ];
  return problems.length > 0 ? `${problems.join('; ')}: ${pre.consequence}` : undefined;
}

/**
 * A scripted Argo Rollouts controller: what argo-rollouts v1.9.1 writes into a canary `Rollout`'s status, and the
 * `AnalysisRun`s it creates, as a function of time and of the analysis outcomes a scenario injects. Behaviour and
 * messages come from argoproj/argo-rollouts at tag v1.9.1 (commit b6bd3bcf), files cited below; timings are
 * illustrative. Blue-green, traffic routers, experiments, step plugins, background analysis and the progress deadline
 * are not modelled: a Rollout that uses them is reported once in the timeline and left where it stands.
 */
import { parseDuration } from './argocd-sync';

type Obj = Record<string, any>;

/** A live object as the World holds it (the subset this controller reads and writes). */
interface LiveLike {
  manifest: Obj;
  readonly createdAt: number;
  status?: Obj;
  logged?: Set<string>;
}

/** What the controller needs from the simulated cluster. */
export interface RolloutsWorld {
  get(kind: string, namespace: string | undefined, name: string): LiveLike | undefined;
  list(kind: string, namespace?: string): LiveLike[];
  apply(manifest: Obj, now: number): LiveLike;
  log(source: string, message: string): void;
}

/** A step analysis whose measurements a scenario decides: every measurement of the metric gets this phase. */
export interface AnalysisOutcomeFault {
  readonly namespace: string;
  readonly rollout: string;
  /** @default - every metric of the Rollout's step analyses */
  readonly metric?: string;
}

/** The analysis faults of `Faults` this controller reads. */
export interface RolloutFaults {
  /** Step analyses whose measurements fail (a Prometheus query over its threshold, an E2E Job that exits non-zero). */
  readonly failingAnalyses?: readonly AnalysisOutcomeFault[];
  /** Step analyses whose measurements are inconclusive (neither the success nor the failure condition holds). */
  readonly inconclusiveAnalyses?: readonly AnalysisOutcomeFault[];
}

/** The Deployment of the release install.yaml (manifests/install.yaml:18740-18746): no controller, no status. */
export const ROLLOUTS_CONTROLLER_DEPLOYMENT = 'argo-rollouts';
/**
 * The objects of an Argo Rollouts release manifest (`…/argoproj/argo-rollouts/releases/download/<tag>/install.yaml`,
 * or `manifests/install.yaml` at a tag) that the simulation needs: the controller's Deployment. The manifest sets
 * no namespace (a kustomization's `namespace:` does; the release's ClusterRoleBinding names `argo-rollouts`).
 */
export function rolloutsReleaseObjects(url: string): Obj[] {
  if (!/\/argoproj\/argo-rollouts\/.*install\.yaml$/.test(url)) return [];
  const labels = { 'app.kubernetes.io/name': ROLLOUTS_CONTROLLER_DEPLOYMENT };
  return [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: ROLLOUTS_CONTROLLER_DEPLOYMENT, namespace: 'argo-rollouts', labels },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: {} } } }];
}

/** Seconds the pods of a scaled ReplicaSet need to become available (illustrative, as ROLLOUT_SECONDS). */
export const CANARY_PODS_SECONDS = 30;
/** Seconds a Job-provider measurement runs (an E2E suite; illustrative). */
export const ANALYSIS_JOB_SECONDS = 120;

const SOURCE = 'argo-rollouts';
/** Annotation holding the revision (utils/annotations/annotations.go RevisionAnnotation). */
const REVISION_ANNOTATION = 'rollout.argoproj.io/revision';

/** What the controller remembers about one Rollout between reconciles (the part of its status it reads back). */
interface RolloutMemory {
  revision: number;
  /** `status.currentPodHash`: the hash of the pod template last observed. */
  currentHash: string;
  /** `status.stableRS`. */
  stableHash?: string;
  /** `status.currentStepIndex`. */
  stepIndex: number;
  /** When the current step began (for the pods of a setWeight step). */
  stepStartedAt: number;
  /** `status.pauseConditions`. */
  pauseConditions: { reason: 'CanaryPauseStep' | 'InconclusiveAnalysisRun'; startedAt: number }[];
  /** `status.controllerPause`. */
  controllerPause: boolean;
  /** The current step's AnalysisRun. */
  analysisRun?: { name: string; startedAt: number; stepIndex: number };
  /** `status.abort` with the message of the Progressing condition. */
  abort?: { message: string; at: number };
  /** Whether a Paused condition was ever set (checkPausedConditions writes it False afterwards). */
  everPaused: boolean;
  /** Whether a Healthy condition was ever set. */
  everHealthy: boolean;
  /** When the canary ReplicaSet last started scaling (initial deploy, a new weight, an abort). */
  podsStartedAt: number;
  /** Available pods of the canary ReplicaSet when that scaling started. */
  canaryBefore: number;
  /** Available pods of the canary ReplicaSet at the last reconcile. */
  canaryAvailable: number;
}

/**
 * The Rollouts controller of one World. A Rollout gets a status only while a Deployment named `argo-rollouts` is
 * available: without the controller (its Application not yet synced, or later in the waves than the apps) a Rollout
 * keeps no status, which Argo CD reports as Progressing "Waiting for rollout spec update to be observed".
 */
export class RolloutsController {
  private readonly memory = new Map<string, RolloutMemory>();

  constructor(private readonly world: RolloutsWorld, private readonly faults: () => RolloutFaults) {}

  /** Whether the controller runs: its Deployment is available somewhere in the cluster. */
  public running(): boolean {
    return this.world.list('Deployment').some((d) => d.manifest.metadata?.name === ROLLOUTS_CONTROLLER_DEPLOYMENT && (d.status?.availableReplicas ?? 0) > 0);
  }

  /**
   * The Rollouts that will still change on their own: an update under way that is not aborted and not waiting for a
   * person (an indefinite pause, an inconclusive analysis, `spec.paused`, a step not modelled). A bring-up is not
   * over while one is, even when Argo CD already counts its Application as done (a timed pause is Suspended too).
   */
  public settling(): string[] {
    if (!this.running()) return [];
    return [...this.memory.entries()].filter(([key, m]) => {
      const o = this.world.get('Rollout', key.split('/')[0], key.split('/')[1]);
      if (!o || m.abort || m.stableHash === m.currentHash || o.manifest.spec?.paused === true) return false;
      if (m.pauseConditions.some((p) => p.reason === 'InconclusiveAnalysisRun')) return false;
      const step = ((o.manifest.spec?.strategy?.canary?.steps ?? []) as Obj[])[m.stepIndex];
      if (step?.pause !== undefined && step.pause.duration === undefined) return false;
      const modelled = [step?.setWeight, step?.setCanaryScale, step?.pause, step?.analysis, step?.setHeaderRoute, step?.setMirrorRoute];
      return step === undefined || modelled.some((x) => x !== undefined);
    }).map(([key, m]) => `Rollout ${key} at step ${m.stepIndex + 1}`).sort();
  }

  /** Reconciles every Rollout to `now`. */
  public reconcile(now: number): void {
    if (!this.running()) return;
    for (const o of this.world.list('Rollout')) if (isRollout(o.manifest)) this.reconcileRollout(o, now);
  }

  private reconcileRollout(o: LiveLike, now: number): void {
    const { namespace, name } = o.manifest.metadata as { namespace: string; name: string };
    const key = `${namespace}/${name}`;
    const spec = (o.manifest.spec ?? {}) as Obj;
    const canary = spec.strategy?.canary as Obj | undefined;
    if (!canary) {
      this.logOnce(o, `Rollout ${key}: only the canary strategy is modelled; its status is left as it is`);
      return;
    }
    // newRolloutContext validates the references before anything else (rollout/controller.go:572-583) and, on a
    // field error, writes the InvalidSpec condition (:623-644) and requeues after 20 s (:430-437).
    const invalid = this.invalidReference(o);
    if (invalid) {
      const message = `The Rollout "${name}" is invalid: ${invalid}`;
      const conditions = setCondition(((o.status?.conditions ?? []) as Obj[]), condition('InvalidSpec', 'True', 'InvalidSpec', message, now));
      const status = { ...(o.status ?? {}), observedGeneration: String(o.manifest.metadata.generation ?? 1), conditions };
      o.status = { ...status, ...calculateRolloutPhase(spec, status) };
      this.logOnce(o, `Rollout ${key}: ${message}`);
      return;
    }
    const hash = podTemplateHash(spec.template);
    const steps = (canary.steps ?? []) as Obj[];
    let m = this.memory.get(key);
    if (!m) {
      // Initial deploy: no stable ReplicaSet, so the controller promotes the first one at once and skips the steps
      // (rollout/sync.go:939-942 shouldFullPromote "Initial deploy"; promoteStable :1010-1022; docs/FAQ.md).
      m = { revision: 1, currentHash: hash, stableHash: hash, stepIndex: steps.length, stepStartedAt: now, pauseConditions: [],
        controllerPause: false,
        everPaused: false, everHealthy: false, podsStartedAt: now, canaryBefore: 0, canaryAvailable: 0 };
      this.memory.set(key, m);
      this.world.log(SOURCE, `Rollout ${key}: created ReplicaSet ${name}-${hash} (revision 1) at full scale: the initial deploy skips the canary steps`);
    } else if (hash !== m.currentHash) {
      // A new pod template: a new ReplicaSet and revision, the status reset to the first step, pauses and abort
      // cleared (rollout/canary.go:361-377, resetRolloutStatus rollout/sync.go:891-903). Back to the stable
      // template: the steps are skipped (canary.go:364-367).
      m.revision += 1;
      m.currentHash = hash;
      m.stepIndex = hash === m.stableHash ? steps.length : 0;
      m.stepStartedAt = now;
      m.canaryAvailable = 0; // the new ReplicaSet has no pods yet
      this.beginScaling(m, now);
      m.pauseConditions = [];
      m.controllerPause = false;
      m.analysisRun = undefined;
      m.abort = undefined;
      this.world.log(SOURCE, `Rollout ${key}: new pod template: ReplicaSet ${name}-${hash} (revision ${m.revision})` +
        (hash === m.stableHash ? ', the stable one: steps skipped' : `, canary steps start (${steps.length} steps)`));
    }
    this.advanceSteps(o, m, steps, now);
    const annotations = { ...(o.manifest.metadata.annotations ?? {}), [REVISION_ANNOTATION]: String(m.revision) };
    o.manifest = { ...o.manifest, metadata: { ...o.manifest.metadata, annotations } };
    o.status = this.status(o, m, steps, now);
  }

  /**
   * Walks the canary steps as far as `now` allows (rolloutCanary, rollout/canary.go:19-104, and
   * syncRolloutStatusCanary :346-420): one step per iteration, stopping at the first that is not complete.
   */
  private advanceSteps(o: LiveLike, m: RolloutMemory, steps: Obj[], now: number): void {
    const { namespace, name } = o.manifest.metadata;
    const key = `${namespace}/${name}`;
    const spec = o.manifest.spec as Obj;
    for (let guard = 0; guard <= steps.length; guard++) {
      if (m.abort || m.stableHash === m.currentHash) return;
      if (spec.paused === true) return; // completedCurrentCanaryStep: never while spec.paused (canary.go:308-311)
      if (m.stepIndex >= steps.length) {
        // All steps done: the weight is 100, and once the new ReplicaSet's pods are all available it becomes the
        // stable one (shouldFullPromote, sync.go:950-966 "Completed all N canary steps"; promoteStable :1010-1038).
        if (now < m.podsStartedAt + CANARY_PODS_SECONDS) return;
        m.stableHash = m.currentHash;
        this.world.log(SOURCE, `Rollout ${key}: Rollout completed update to revision ${m.revision} (${m.currentHash}): Completed all ${steps.length} canary steps`);
        return;
      }
      const step = steps[m.stepIndex];
      if (!this.stepCompleted(o, m, step, now)) return;
      if (m.abort) return;
      m.stepIndex += 1;
      m.stepStartedAt = now;
      m.analysisRun = undefined;
      m.pauseConditions = m.pauseConditions.filter((p) => p.reason !== 'CanaryPauseStep');
      // The event RolloutStepCompleted (utils/conditions/conditions.go:114-115, CanaryStepString rolloututil.go).
      this.world.log(SOURCE, `Rollout ${key}: Rollout step ${m.stepIndex}/${steps.length} completed (${canaryStepString(step)})`);
      // A new weight (a setWeight step, or 100 after the last step) starts scaling the canary ReplicaSet.
      if (m.stepIndex >= steps.length || steps[m.stepIndex].setWeight !== undefined) this.beginScaling(m, now);
    }
  }

  /** completedCurrentCanaryStep (rollout/canary.go:307-344), with the pause and analysis reconcilers it relies on. */
  private stepCompleted(o: LiveLike, m: RolloutMemory, step: Obj, now: number): boolean {
    const { namespace, name } = o.manifest.metadata;
    const key = `${namespace}/${name}`;
    if (step.setWeight !== undefined || step.setCanaryScale !== undefined) {
      // Done once the canary ReplicaSet is at its count and its pods are available (AtDesiredReplicaCountsForCanary).
      return now >= m.podsStartedAt + CANARY_PODS_SECONDS;
    }
    if (step.setHeaderRoute !== undefined || step.setMirrorRoute !== undefined) return true;
    if (step.pause !== undefined) {
      // reconcileCanaryPause (canary.go:135-175) adds the CanaryPauseStep condition once; CompletedCanaryPauseStep
      // (rollout/pause.go:172-187) completes a timed pause when its duration has passed, an indefinite one never
      // (until `kubectl argo rollouts promote` clears the condition).
      let cond = m.pauseConditions.find((p) => p.reason === 'CanaryPauseStep');
      if (!cond) {
        cond = { reason: 'CanaryPauseStep', startedAt: now };
        m.pauseConditions.push(cond);
        m.controllerPause = true;
        m.everPaused = true;
        const duration = step.pause.duration;
        this.world.log(SOURCE, `Rollout ${key}: paused at step ${m.stepIndex + 1} (${canaryStepString(step)})` +
          (duration === undefined ? ': indefinitely, until promoted' : ''));
        return false;
      }
      const duration = step.pause.duration;
      if (duration === undefined) return false;
      if (now <= cond.startedAt + parseDuration(duration)) return false;
      m.controllerPause = false;
      return true;
    }
    if (step.analysis !== undefined) return this.stepAnalysis(o, m, step, now);
    this.logOnce(o, `Rollout ${key}: step ${m.stepIndex + 1} (${canaryStepString(step)}) is not modelled; the Rollout stays at it`);
    return false;
  }

  /**
   * reconcileStepBasedAnalysisRun (rollout/analysis.go:404-443): creates the step's AnalysisRun, named
   * `<rollout>-<podHash>-<revision>-<stepIndex>` (newAnalysisRunFromRollout :466-472); a Successful run completes the
   * step (canary.go:332-335), a Failed or Error one aborts with "Step-based analysis phase error/failed: <run
   * message>" (:434-439), an Inconclusive one pauses with InconclusiveAnalysisRun (:432-433).
   */
  private stepAnalysis(o: LiveLike, m: RolloutMemory, step: Obj, now: number): boolean {
    const { namespace, name } = o.manifest.metadata as { namespace: string; name: string };
    const key = `${namespace}/${name}`;
    if (m.pauseConditions.length > 0) return false; // analysis.go:408-410
    if (!m.analysisRun || m.analysisRun.stepIndex !== m.stepIndex) {
      const runName = `${name}-${m.currentHash}-${m.revision}-${m.stepIndex}`;
      m.analysisRun = { name: runName, startedAt: now, stepIndex: m.stepIndex };
      this.world.log(SOURCE, `Rollout ${key}: created AnalysisRun ${runName} for step ${m.stepIndex + 1} (${templateNames(step).join(', ')})`);
    }
    const run = this.analysisRun(o, m, step, now);
    if (run.phase === 'Successful') return true;
    if (run.phase === 'Failed' || run.phase === 'Error') {
      const reason = `Step-based analysis phase error/failed${run.message ? `: ${run.message}` : ''}`;
      // calculateRolloutConditions (rollout/sync.go:607-615): "Rollout aborted update to revision N: <abort message>".
      m.abort = { message: `Rollout aborted update to revision ${m.revision}: ${reason}`, at: now };
      m.stepIndex = 0; // an aborted canary goes back to the first step (canary.go:396-403)
      // The canary is scaled back to zero and the weight to the stable (GetCurrentSetWeight is 0 when aborted).
      this.beginScaling(m, now);
      this.world.log(SOURCE, `Rollout ${key}: ${m.abort.message}`);
      return false;
    }
    if (run.phase === 'Inconclusive') {
      m.pauseConditions.push({ reason: 'InconclusiveAnalysisRun', startedAt: now });
      m.controllerPause = true;
      m.everPaused = true;
      this.world.log(SOURCE, `Rollout ${key}: paused (InconclusiveAnalysisRun): ${run.message}`);
    }
    return false;
  }

  /** The step's AnalysisRun at `now`, written into the World as `kubectl get analysisrun` would show it. */
  private analysisRun(o: LiveLike, m: RolloutMemory, step: Obj, now: number): RunState {
    const { namespace, name } = o.manifest.metadata as { namespace: string; name: string };
    const ref = m.analysisRun!;
    const metrics = templateNames(step).flatMap((t) => ((this.world.get('AnalysisTemplate', namespace, t)?.manifest.spec?.metrics ?? []) as Obj[]));
    const faults = this.faults();
    const outcomeOf = (metric: string): MeasurementPhase => {
      const hit = (list: readonly AnalysisOutcomeFault[] | undefined) => (list ?? [])
        .some((f) => f.namespace === namespace && f.rollout === name && (f.metric === undefined || f.metric === metric));
      if (hit(faults.failingAnalyses)) return 'Failed';
      if (hit(faults.inconclusiveAnalyses)) return 'Inconclusive';
      return 'Successful';
    };
    const state = assessRun(metrics, ref.startedAt, now, outcomeOf);
    const live = this.world.get('AnalysisRun', namespace, ref.name) ?? this.world.apply({
      apiVersion: 'argoproj.io/v1alpha1', kind: 'AnalysisRun',
      metadata: { name: ref.name, namespace, labels: { 'rollouts-pod-template-hash': m.currentHash, 'rollout-type': 'Step', 'step-index': String(ref.stepIndex) },
        ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name, controller: true }] },
      spec: { metrics },
    }, now);
    const previous = live.status?.phase;
    live.status = { phase: state.phase, ...(state.message ? { message: state.message } : {}), metricResults: state.metricResults };
    if (previous !== state.phase && state.phase !== 'Running') {
      this.world.log(SOURCE, `AnalysisRun ${namespace}/${ref.name}: ${state.phase}${state.message ? `: ${state.message}` : ''}`);
    }
    return state;
  }

  /**
   * The references the controller validates before reconciling (getRolloutValidationErrors, rollout/controller.go:
   * 605-621): the canary and stable Services and every step's AnalysisTemplates must exist. The message is the
   * field error's (k8s field.Invalid), e.g. `spec.strategy.canary.steps[2].analysis.templates: Invalid value:
   * "web-e2e": AnalysisTemplate 'web-e2e' not found` (controller.go:806-819, :905-909;
   * pkg/apis/rollouts/validation/validation_references.go:518-567).
   */
  private invalidReference(o: LiveLike): string | undefined {
    const ns = o.manifest.metadata.namespace as string;
    const canary = o.manifest.spec.strategy.canary as Obj;
    for (const [field, service] of [['stableService', canary.stableService], ['canaryService', canary.canaryService]] as const) {
      if (typeof service === 'string' && service !== '' && !this.world.get('Service', ns, service)) {
        return `spec.strategy.canary.${field}: Invalid value: "${service}": services "${service}" not found`;
      }
    }
    for (const [i, step] of ((canary.steps ?? []) as Obj[]).entries()) {
      if (step.analysis === undefined) continue;
      for (const ref of (step.analysis.templates ?? []) as Obj[]) {
        const kind = ref.clusterScope === true ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
        if (!this.world.get(kind, kind === 'AnalysisTemplate' ? ns : undefined, ref.templateName)) {
          return `spec.strategy.canary.steps[${i}].analysis.templates: Invalid value: "${ref.templateName}": ${kind} '${ref.templateName}' not found`;
        }
      }
    }
    return undefined;
  }

  /** The status as v1.9.1 writes it (RolloutStatus, pkg/apis/rollouts/v1alpha1/types.go:930-1014). */
  private status(o: LiveLike, m: RolloutMemory, steps: Obj[], now: number): Obj {
    const spec = o.manifest.spec as Obj;
    const name = o.manifest.metadata.name as string;
    const replicas = (spec.replicas as number | undefined) ?? 1;
    const podsReady = now >= m.podsStartedAt + CANARY_PODS_SECONDS;
    const [canaryCount, stableCount] = this.desiredCounts(o, m, steps);
    // While a scaling is under way, only the pods that were available before it count (no surge pods modelled).
    const canaryAvailable = podsReady ? canaryCount : Math.min(m.canaryBefore, canaryCount);
    m.canaryAvailable = canaryAvailable;
    const updatedReplicas = canaryCount;
    const available = stableCount + canaryAvailable;
    const status: Obj = {
      observedGeneration: String(o.manifest.metadata.generation ?? 1),
      HPAReplicas: canaryCount + stableCount,
      replicas: canaryCount + stableCount,
      updatedReplicas,
      readyReplicas: available,
      availableReplicas: available,
      currentPodHash: m.currentHash,
      stableRS: m.stableHash,
      currentStepHash: podTemplateHash(steps),
      ...(steps.length > 0 ? { currentStepIndex: m.stepIndex } : {}),
      selector: Object.entries((spec.selector?.matchLabels ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(','),
      canary: m.analysisRun ? { currentStepAnalysisRunStatus: this.runStatus(o, m) } : {},
      blueGreen: {},
      ...(m.pauseConditions.length > 0
        ? { pauseConditions: m.pauseConditions.map((p) => ({ reason: p.reason, startTime: timestamp(p.startedAt) })) }
        : {}),
      ...(m.controllerPause && !m.abort ? { controllerPause: true } : {}),
      ...(m.abort ? { abort: true, abortedAt: timestamp(m.abort.at) } : {}),
    };
    status.conditions = this.conditions(o, m, status, replicas, now, name);
    return { ...status, ...calculateRolloutPhase(spec, status) };
  }

  /** The canary and stable pod counts the controller scales to (CalculateReplicaCountsForBasicCanary's targets). */
  private desiredCounts(o: LiveLike, m: RolloutMemory, steps: Obj[]): [number, number] {
    const spec = o.manifest.spec as Obj;
    const replicas = (spec.replicas as number | undefined) ?? 1;
    if (m.stableHash === m.currentHash) return [replicas, 0];
    if (m.abort) return [0, replicas];
    return canaryReplicaCounts(replicas, currentSetWeight(steps, m.stepIndex), maxSurge(spec.strategy.canary, replicas));
  }

  /** Starts scaling the canary ReplicaSet to a new count: its new pods are available CANARY_PODS_SECONDS later. */
  private beginScaling(m: RolloutMemory, now: number): void {
    m.canaryBefore = m.canaryAvailable;
    m.podsStartedAt = now;
  }

  private runStatus(o: LiveLike, m: RolloutMemory): Obj {
    const live = this.world.get('AnalysisRun', o.manifest.metadata.namespace, m.analysisRun!.name);
    const phase = (live?.status?.phase as string | undefined) ?? 'Pending';
    return { name: m.analysisRun!.name, status: phase, ...(live?.status?.message ? { message: live.status.message } : {}) };
  }

  /**
   * The conditions calculateRolloutConditions and checkPausedConditions write (rollout/sync.go:485-525, :587-738),
   * with the reasons and messages of utils/conditions/conditions.go:20-158. Times are the simulated clock.
   */
  private conditions(o: LiveLike, m: RolloutMemory, st: Obj, replicas: number, now: number, name: string): Obj[] {
    const rs = `${name}-${m.currentHash}`;
    const paused = m.pauseConditions.length > 0 || o.manifest.spec.paused === true;
    const completed = st.stableRS !== undefined && st.stableRS === st.currentPodHash; // RolloutCompleted
    const healthy = completed && st.updatedReplicas === replicas && st.availableReplicas === replicas && st.replicas === replicas
      && (st.currentStepIndex === undefined || st.currentStepIndex === ((o.manifest.spec.strategy.canary.steps ?? []) as Obj[]).length);
    const previous = (o.status?.conditions ?? []) as Obj[];
    let list = previous.filter((c) => c.type !== 'InvalidSpec');
    if (!paused && healthy) {
      m.everHealthy = true;
      list = setCondition(list, condition('Healthy', 'True', 'RolloutHealthy', 'Rollout is healthy', now));
    } else if (m.everHealthy) {
      list = setCondition(list, condition('Healthy', 'False', 'RolloutHealthy', 'Rollout is not healthy', now));
    }
    if (m.abort) list = setCondition(list, condition('Progressing', 'False', 'RolloutAborted', m.abort.message, now));
    else if (paused && !completed) list = setCondition(list, condition('Progressing', 'Unknown', 'RolloutPaused', 'Rollout is paused', now));
    else if (healthy) list = setCondition(list, condition('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${rs}" has successfully progressed.`, now));
    else list = setCondition(list, condition('Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${rs}" is progressing.`, now));
    if (!m.abort && (paused || m.everPaused)) {
      list = setCondition(list, condition('Paused', paused ? 'True' : 'False', 'RolloutPaused', 'Rollout is paused', now));
    }
    list = setCondition(list, st.availableReplicas >= replicas
      ? condition('Available', 'True', 'AvailableReason', 'Rollout has minimum availability', now)
      : condition('Available', 'False', 'AvailableReason', 'Rollout does not have minimum availability', now));
    list = setCondition(list, condition('Completed', completed ? 'True' : 'False', 'RolloutCompleted', 'RolloutCompleted', now));
    return list;
  }

  private logOnce(o: LiveLike, message: string): void {
    o.logged ??= new Set<string>();
    if (o.logged.has(message)) return;
    o.logged.add(message);
    this.world.log(SOURCE, message);
  }
}

/** Phases of an AnalysisRun and of its measurements (pkg/apis/rollouts/v1alpha1/analysis_types.go). */
export type AnalysisPhase = 'Pending' | 'Running' | 'Successful' | 'Failed' | 'Error' | 'Inconclusive';
type MeasurementPhase = 'Successful' | 'Failed' | 'Inconclusive';

/** An AnalysisRun's phase and message at one time, with a result per metric. */
export interface RunState {
  readonly phase: AnalysisPhase;
  readonly message: string;
  readonly metricResults: readonly Obj[];
}

/** Completed phases from best to worst (utils/analysis/helpers.go IsWorse: Successful < Inconclusive < Error < Failed). */
const RUN_ORDER: AnalysisPhase[] = ['Successful', 'Inconclusive', 'Error', 'Failed'];

/**
 * The assessment of a run whose every measurement of a metric has one phase (analysis/analysis.go:436-573, assessRunStatus;
 * assessMetricStatus :579-656, assessMetricFailureInconclusiveOrError :658-687). Measurement k of a metric is taken at
 * `initialDelay + k × interval` after the run starts (a Job-provider measurement finishes ANALYSIS_JOB_SECONDS later);
 * without `interval` there is one measurement, with `interval` and no `count` the metric runs until it fails
 * (Metric.EffectiveCount, analysis_types.go:159-169). A Failed or Inconclusive metric terminates the run, whose
 * other metrics then count as Successful (IsTerminating, utils/analysis/helpers.go); the run's message is the worst
 * metric's: `Metric "<name>" assessed Failed due to failed (N) > failureLimit (L)` (analysis.go:504).
 */
export function assessRun(metrics: readonly Obj[], startedAt: number, now: number, outcomeOf: (metric: string) => MeasurementPhase): RunState {
  const results = metrics.map((metric) => assessMetric(metric, startedAt, outcomeOf(metric.name as string)));
  const terminal = results.filter((r) => r.phase !== 'Successful' && r.at !== undefined && r.at <= now).sort((a, b) => a.at! - b.at!);
  const terminatedAt = terminal[0]?.at;
  const done = (r: MetricAssessment) => r.at !== undefined && r.at <= now;
  const phaseAt = (r: MetricAssessment): AnalysisPhase => (done(r) ? r.phase : terminatedAt !== undefined ? 'Successful' : 'Running');
  const metricResults = results.map((r) => ({ name: r.name, phase: phaseAt(r), count: r.measurementsBy(now), ...(done(r) && r.phase !== 'Successful' ? { [r.counter]: r.limit + 1 } : {}) }));
  if (terminatedAt === undefined && !results.every(done)) return { phase: results.length === 0 ? 'Successful' : 'Running', message: '', metricResults };
  let worst: MetricAssessment | undefined;
  for (const r of results) if (done(r) && (!worst || RUN_ORDER.indexOf(r.phase) > RUN_ORDER.indexOf(worst.phase))) worst = r;
  if (!worst || worst.phase === 'Successful') return { phase: 'Successful', message: '', metricResults };
  return { phase: worst.phase, message: `Metric "${worst.name}" assessed ${worst.phase} due to ${worst.reason}`, metricResults };
}

interface MetricAssessment {
  readonly name: string;
  readonly phase: 'Successful' | 'Failed' | 'Inconclusive';
  /** When the metric completes; undefined: never (runs indefinitely). */
  readonly at?: number;
  readonly reason: string;
  readonly counter: 'failed' | 'inconclusive';
  readonly limit: number;
  measurementsBy(now: number): number;
}

function assessMetric(metric: Obj, startedAt: number, outcome: MeasurementPhase): MetricAssessment {
  const name = metric.name as string;
  const initialDelay = metric.initialDelay !== undefined ? parseDuration(metric.initialDelay) : 0;
  const interval = metric.interval !== undefined && metric.interval !== '' ? parseDuration(metric.interval) : undefined;
  const countValue = metric.count !== undefined ? Number(metric.count) : 0;
  const count = countValue > 0 ? countValue : interval === undefined ? 1 : undefined; // EffectiveCount
  const jobSeconds = metric.provider?.job !== undefined ? ANALYSIS_JOB_SECONDS : 0;
  const finishedAt = (k: number) => startedAt + initialDelay + k * (interval ?? 0) + jobSeconds;
  const measurementsBy = (now: number) => {
    let n = 0;
    while ((count === undefined || n < count) && finishedAt(n) <= now && n < 10_000) n++;
    return n;
  };
  const success = { name, phase: 'Successful' as const, at: count === undefined ? undefined : finishedAt(count - 1), reason: '', counter: 'failed' as const, limit: 0, measurementsBy };
  if (outcome === 'Successful') return success;
  const counter = outcome === 'Failed' ? 'failed' as const : 'inconclusive' as const;
  const limitField = outcome === 'Failed' ? metric.failureLimit : metric.inconclusiveLimit;
  const limit = limitField !== undefined ? Number(limitField) : 0;
  // A negative failureLimit disables the failure check (analysis.go:666-670): the metric succeeds at its count.
  if (limit < 0 || (count !== undefined && count < limit + 1)) return success;
  const limitName = outcome === 'Failed' ? 'failureLimit' : 'inconclusiveLimit';
  return { name, phase: outcome, at: finishedAt(limit), reason: `${counter} (${limit + 1}) > ${limitName} (${limit})`, counter, limit, measurementsBy };
}

/**
 * CalculateRolloutPhase for a canary (utils/rollout/rolloututil.go:133-190): what v1.9.1 writes as `status.phase` and
 * `status.message` with every status (rollout/sync.go:757-758) and what Argo CD's health reads.
 */
export function calculateRolloutPhase(spec: Obj, status: Obj): { phase: string; message: string } {
  for (const c of (status.conditions ?? []) as Obj[]) {
    if (c.type === 'InvalidSpec') return { phase: 'Degraded', message: `InvalidSpec: ${c.message}` };
    if (c.reason === 'RolloutAborted' || c.reason === 'ProgressDeadlineExceeded') return { phase: 'Degraded', message: `${c.reason}: ${c.message}` };
  }
  if (spec.paused === true) return { phase: 'Paused', message: 'manually paused' };
  const pause = ((status.pauseConditions ?? []) as Obj[])[0];
  if (pause) return { phase: 'Paused', message: String(pause.reason) };
  const replicas = (spec.replicas as number | undefined) ?? 1;
  if ((status.updatedReplicas ?? 0) < replicas) return { phase: 'Progressing', message: 'more replicas need to be updated' };
  if ((status.availableReplicas ?? 0) < (status.updatedReplicas ?? 0)) return { phase: 'Progressing', message: 'updated replicas are still becoming available' };
  if (spec.strategy?.canary !== undefined) {
    if (spec.strategy.canary.trafficRouting === undefined && (status.replicas ?? 0) > (status.updatedReplicas ?? 0)) {
      return { phase: 'Progressing', message: 'old replicas are pending termination' };
    }
    if (!status.stableRS || status.stableRS !== status.currentPodHash) return { phase: 'Progressing', message: 'waiting for all steps to complete' };
  }
  return { phase: 'Healthy', message: '' };
}

/**
 * approximateWeightedCanaryStableReplicaCounts (utils/replicaset/canary.go): without a traffic router the weight is
 * approximated by pod counts, choosing among ceil/floor with and without one surge pod the option closest to it.
 */
export function canaryReplicaCounts(replicas: number, weight: number, surge: number): [number, number] {
  if (replicas === 0) return [0, 0];
  const exact = (replicas * weight) / 100;
  const ceil = Math.ceil(exact);
  const floor = Math.floor(exact);
  const tied = (total: number) => Math.abs((total * weight) / 100 % 1 - 0.5) < 1e-9;
  const zeroAllowed = weight === 100 || weight === 0 || (replicas === 1 && surge === 0);
  const options: [number, number][] = [];
  if (ceil < replicas || zeroAllowed) options.push([ceil, replicas]);
  if (!tied(replicas) && (floor !== 0 || zeroAllowed)) options.push([floor, replicas]);
  if (surge > 0) {
    options.push([ceil, replicas + 1]);
    if (!tied(replicas + 1) && (floor !== 0 || zeroAllowed)) options.push([floor, replicas + 1]);
  }
  if (options.length === 0) return [0, replicas];
  const delta = ([c, t]: [number, number]) => Math.abs((c * 100) / t - weight);
  let best = options[0];
  for (const o of options.slice(1)) if (delta(o) < delta(best)) best = o;
  return [best[0], best[1] - best[0]];
}

/** GetCurrentSetWeight (utils/replicaset/canary.go): the last setWeight at or before the current step. */
function currentSetWeight(steps: readonly Obj[], stepIndex: number): number {
  if (stepIndex >= steps.length) return 100;
  for (let i = stepIndex; i >= 0; i--) if (steps[i].setWeight !== undefined) return Number(steps[i].setWeight);
  return 0;
}

/** MaxSurge (utils/replicaset/replicaset.go): an int or a percentage of the replicas rounded up; default 25%. */
function maxSurge(canary: Obj, replicas: number): number {
  const v = canary.maxSurge ?? '25%';
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(String(v));
  return m ? Math.ceil((replicas * Number(m[1])) / 100) : Number(v);
}

/** CanaryStepString (utils/rollout/rolloututil.go), for the step events. */
export function canaryStepString(step: Obj): string {
  if (step.setWeight !== undefined) return `setWeight: ${step.setWeight}`;
  // RolloutPause.Duration is an int-or-string, printed as written.
  if (step.pause !== undefined) return step.pause.duration !== undefined ? `pause: ${String(step.pause.duration)}` : 'pause';
  if (step.experiment !== undefined) return 'experiment';
  if (step.analysis !== undefined) return 'analysis';
  if (step.plugin !== undefined) return `plugin: ${step.plugin.name}`;
  if (step.setHeaderRoute !== undefined) return `setHeaderRoute: ${step.setHeaderRoute.name}`;
  if (step.setMirrorRoute !== undefined) return `setMirrorRoute: ${step.setMirrorRoute.name}`;
  return 'invalid';
}

function templateNames(step: Obj): string[] {
  return ((step.analysis?.templates ?? []) as Obj[]).map((t) => String(t.templateName));
}

function isRollout(manifest: Obj): boolean {
  return String(manifest.apiVersion ?? '').startsWith('argoproj.io/');
}

function condition(type: string, status: string, reason: string, message: string, now: number): Obj {
  return { type, status, reason, message, lastUpdateTime: timestamp(now), lastTransitionTime: timestamp(now) };
}

/** SetRolloutCondition (utils/conditions/conditions.go): an unchanged status and reason keeps the old condition. */
function setCondition(list: readonly Obj[], c: Obj): Obj[] {
  const existing = list.find((x) => x.type === c.type);
  if (existing && existing.status === c.status && existing.reason === c.reason && existing.message === c.message) return [...list];
  return [...list.filter((x) => x.type !== c.type), c];
}

/** Simulated seconds as an RFC 3339 time on a fixed day, so statuses are deterministic. */
function timestamp(seconds: number): string {
  return new Date(Date.UTC(2026, 0, 1) + Math.round(seconds) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * A stand-in for the `rollouts-pod-template-hash` of a pod template: deterministic and different for different
 * templates, in the alphabet of rand.SafeEncodeString, but not the controller's value (it hashes the Go struct).
 */
export function podTemplateHash(template: unknown): string {
  const text = JSON.stringify(template ?? null);
  const fnv32a = (salt: string) => { // FNV-1a, 32 bits, the hash hash.ComputePodTemplateHash uses
    let h = 0x811c9dc5;
    for (const c of salt + text) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    return h;
  };
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const encode = (n: number) => Array.from({ length: 5 }, (_, i) => alphabet[Math.floor(n / alphabet.length ** i) % alphabet.length]).join('');
  return encode(fnv32a('')) + encode(fnv32a('#'));
}

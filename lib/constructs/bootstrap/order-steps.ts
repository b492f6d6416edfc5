import { Chart, DependencyGraph } from 'cdk8s';
import { BootstrapStep, StepDependency } from './bootstrap-step';

/** Thrown when the steps' dependencies form a cycle; the message names every step of the cycle and why. */
export class DependencyCycleError extends Error {
  /**
   * @param cycle the steps of the cycle, each depending on the next and the last on the first
   * @param reasons why each step depends on the next
   */
  constructor(public readonly cycle: readonly BootstrapStep[], reasons: readonly string[]) {
    const names = [...cycle, cycle[0]].map((s) => s.stepName);
    super([
      `bootstrap order has a dependency cycle: ${names.join(' -> ')}`,
      ...cycle.map((s, i) => `    ${s.stepName} needs ${names[i + 1]}: ${reasons[i]}`),
      '  Break the cycle: a Phase-0 component must not depend on anything that only exists after it.',
    ].join('\n'));
    this.name = 'DependencyCycleError';
  }
}

/**
 * Every dependency of `step`: the declared ones, plus those implied by construct dependencies that cross
 * into another step (`forgejo.node.addDependency(waitJob)`), so the order can never contradict the code.
 * cdk8s turns such a construct dependency into the same chart dependency when it synthesizes (core
 * `src/app.ts`, `resolveDependencies`); this names the reason.
 */
export function allDependencies(step: BootstrapStep): StepDependency[] {
  const deps = [...step.dependencies];
  for (const c of step.node.findAll()) {
    for (const target of c.node.dependencies) {
      const targetChart = Chart.of(target);
      if (targetChart === step || !BootstrapStep.isBootstrapStep(targetChart)) continue;
      if (deps.some((d) => d.step === targetChart)) continue;
      deps.push({ step: targetChart, reason: `${c.node.path} depends on ${target.node.path}` });
    }
  }
  return deps;
}

/**
 * Orders steps so that each comes after everything it depends on, with cdk8s's own dependency graph (the
 * order `App.synth()` gives charts): every step dependency is a chart dependency (`Chart.addDependency`), and
 * ties keep the order in which the steps were defined. The order (and the `NN-` file numbers) therefore
 * change only when dependencies change. Throws `DependencyCycleError` naming the cycle and its reasons.
 */
export function orderSteps(steps: readonly BootstrapStep[]): BootstrapStep[] {
  if (steps.length === 0) return [];
  const scope = steps[0].node.scope!;
  for (const step of steps) {
    if (step.node.scope !== scope) {
      throw new Error(`bootstrap steps must share one parent: '${step.node.path}' is not under '${scope.node.path}'`);
    }
    // What cdk8s would do at synthesis, done now so that the order is known before anything renders.
    for (const dep of allDependencies(step)) step.addDependency(dep.step);
  }
  let topology;
  try {
    topology = new DependencyGraph(scope.node).topology();
  } catch (e) {
    const cycle = findCycle(steps);
    if (cycle) throw cycle;
    throw e;
  }
  const wanted = new Set(steps);
  return topology.filter((c): c is BootstrapStep => BootstrapStep.isBootstrapStep(c) && wanted.has(c));
}

/** The first cycle among the steps' dependencies, with the reason of each edge, to explain cdk8s's cycle error. */
function findCycle(steps: readonly BootstrapStep[]): DependencyCycleError | undefined {
  const done = new Set<BootstrapStep>();
  const onPath: BootstrapStep[] = [];
  const reasons: string[] = [];
  const visit = (step: BootstrapStep): DependencyCycleError | undefined => {
    if (done.has(step)) return undefined;
    const seen = onPath.indexOf(step);
    if (seen >= 0) return new DependencyCycleError(onPath.slice(seen), reasons.slice(seen));
    onPath.push(step);
    for (const dep of allDependencies(step)) {
      reasons.push(dep.reason);
      const cycle = visit(dep.step);
      reasons.pop();
      if (cycle) return cycle;
    }
    onPath.pop();
    done.add(step);
    return undefined;
  };
  for (const step of steps) {
    const cycle = visit(step);
    if (cycle) return cycle;
  }
  return undefined;
}

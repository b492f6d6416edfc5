import { Chart } from 'cdk8s';
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
 * Orders steps so that each comes after everything it depends on. Ties keep declaration order, so the
 * order (and the `NN-` file numbers) change only when dependencies change. Throws `DependencyCycleError`.
 */
export function orderSteps(steps: readonly BootstrapStep[]): BootstrapStep[] {
  const ordered: BootstrapStep[] = [];
  const done = new Set<BootstrapStep>();
  const onPath: BootstrapStep[] = [];
  // reasons[i] explains the edge onPath[i] -> onPath[i + 1] (or -> the step being entered).
  const reasons: string[] = [];

  const visit = (step: BootstrapStep): void => {
    if (done.has(step)) return;
    const seen = onPath.indexOf(step);
    if (seen >= 0) throw new DependencyCycleError(onPath.slice(seen), reasons.slice(seen));
    onPath.push(step);
    for (const dep of allDependencies(step)) {
      reasons.push(dep.reason);
      visit(dep.step);
      reasons.pop();
    }
    onPath.pop();
    done.add(step);
    ordered.push(step);
  };

  steps.forEach(visit);
  return ordered;
}

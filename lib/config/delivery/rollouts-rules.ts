/**
 * The rules of `delivery.apps.<name>.canary` that span fields, and how an app's canary resolves (steps, replicas).
 * Facts about the controller are from argoproj/argo-rollouts at tag v1.9.1.
 */
import type { ProblemCollector } from '../../shared/errors';
import type { ResolvedHomelabConfig } from '../resolved';
import type { ResolvedDeliveryAppConfig } from './types';
import { appDistFolder } from '../../shared/delivery-layout';
import { CanaryStep, DEFAULT_CANARY_STEPS } from './rollouts';

/** Replicas of an app that sets none and is not a replica-weighted canary. */
export const DEFAULT_REPLICAS = 2;

/** The steps of a canary app: its own, or the default ones followed by the E2E step when the app has `e2e`. */
export function canaryStepsOf(app: ResolvedDeliveryAppConfig): readonly CanaryStep[] {
  return app.canary?.steps ?? [...DEFAULT_CANARY_STEPS, ...(app.e2e ? [{ e2e: {} }] : [])];
}

/** The smallest `setWeight` below 100 of the steps; undefined when there is none. */
function smallestPartialWeight(steps: readonly CanaryStep[]): number | undefined {
  const weights = steps.flatMap((s) => ('setWeight' in s && s.setWeight < 100 ? [s.setWeight] : []));
  return weights.length === 0 ? undefined : Math.min(...weights);
}

/**
 * Pods with one canary pod at the smallest weight: Argo Rollouts without a traffic router sets the canary's share by
 * replica counts, `ceil(replicas × weight / 100)` or its floor, and never rounds a weight of 1–99 down to 0 pods
 * (`approximateWeightedCanaryStableReplicaCounts`, v1.9.1 utils/replicaset/canary.go).
 */
function replicasForWeight(weight: number): number {
  return Math.ceil(100 / weight);
}

/** The replicas of an app: its own, or the default (for a replica-weighted canary, enough for its smallest weight). */
export function replicasOf(app: ResolvedDeliveryAppConfig): number {
  if (app.replicas !== undefined) return app.replicas;
  if (app.delivery !== 'canary' || app.canary?.trafficRouter) return DEFAULT_REPLICAS;
  const weight = smallestPartialWeight(canaryStepsOf(app));
  return weight === undefined ? DEFAULT_REPLICAS : Math.max(DEFAULT_REPLICAS, replicasForWeight(weight));
}

/** Whether an Application of the catalog installs `chart` (ingress-nginx for the `nginx` router, the Prometheus stack). */
function installsChart(applications: Readonly<Record<string, { sources: readonly { kind: string; chart?: string }[] }>>, chart: string): boolean {
  return Object.values(applications).some((a) => a.sources.some((s) => s.kind === 'helm-chart' && s.chart === chart));
}

/** A `ConfigRule` of lib/config/rules.ts (typed by shape: importing the type from there would be an import cycle). */
export const rolloutsRules = {
  name: 'a canary is set only on a canary app, its steps are checked by an analysis, and its smallest weight is more than one pod of traffic',
  check: (config: ResolvedHomelabConfig, problems: ProblemCollector): void => {
    const apps = config.delivery?.apps ?? {};
    const distPath = config.git.distPath;
    const inside = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);
    for (const name of Object.keys(apps).sort()) {
      const app = apps[name];
      const path = `delivery.apps.${name}`;
      const overlay = app.overlayPath ?? `k8s/apps/${name}`;
      const generated = distPath === '.' ? appDistFolder(name) : `${distPath}/${appDistFolder(name)}`;
      // With imageUpdates, the Image Updater rule reports the same mistake naming the override file it would lose.
      problems.when(app.imageUpdates === undefined && (distPath === '.' ? inside(overlay, generated) || inside(generated, overlay) : inside(overlay, distPath)), `${path}.overlayPath`,
        () => `'${overlay}' is inside the generated tree (git.distPath '${distPath}'): synthesis rewrites it, so Image Updater's write-back ` +
          `there would be undone and fail the drift check. Use a directory of its own, e.g. 'k8s/apps/${name}'.`);
      if (app.delivery !== 'canary') {
        problems.when(app.canary !== undefined, `${path}.canary`,
          () => `is set, but the app's delivery is '${app.delivery}': only a canary app (a Rollout) has canary steps. ` +
            "Set delivery: 'canary', or remove canary.");
        continue;
      }
      problems.when(config.delivery?.rollouts.prometheusAddress === undefined && !installsChart(config.argocd.applications, 'kube-prometheus-stack'),
        `${path}.delivery`,
        () => "is 'canary', whose analysis queries Prometheus, and no Application of argocd.applications installs the " +
          'kube-prometheus-stack chart. Add it, set delivery.rollouts.prometheusAddress, or use delivery: \'rolling\'.');
      const steps = canaryStepsOf(app);
      const stepsPath = `${path}.canary.steps`;
      const analysis = app.canary?.analysis;
      if (analysis) {
        // A count below 1 is the schema's problem, reported there.
        problems.when(analysis.count >= 1 && analysis.failureLimit >= analysis.count, `${path}.canary.analysis.failureLimit`,
          () => `is ${analysis.failureLimit} with count ${analysis.count}: an analysis fails only after more than failureLimit failed ` +
            `measurements, so it could never fail and never abort the canary. Set failureLimit below count (e.g. ${analysis.count - 1}), or raise count.`);
      }
      problems.when(!steps.some((s) => 'analysis' in s || 'e2e' in s), stepsPath,
        () => 'has no { analysis: {} } or { e2e: {} } step: nothing would measure the canary, and a bad version would be promoted ' +
          'after the last step. Add { analysis: {} } after a setWeight step.');
      steps.forEach((s, i) => {
        problems.when('e2e' in s && !app.e2e, `${stepsPath}[${i}]`,
          () => `is an e2e step, but the app has no e2e journeys. Add delivery.apps.${name}.e2e, or remove the step.`);
      });
      problems.when(app.e2e !== undefined && !steps.some((s) => 'e2e' in s), stepsPath,
        () => 'has no { e2e: {} } step, but the app has e2e journeys: they would never gate the canary (a PostSync hook would run ' +
          'only after full promotion, and would hold a paused canary\'s sync). Add { e2e: {} } before the last step.');
      const router = app.canary?.trafficRouter;
      problems.when(router?.nginx !== undefined && !installsChart(config.argocd.applications, 'ingress-nginx'), `${path}.canary.trafficRouter.nginx`,
        () => 'needs ingress-nginx, and no Application of argocd.applications installs the ingress-nginx chart. Add it, or remove ' +
          'trafficRouter to weight by replica counts.');
      const weight = smallestPartialWeight(steps);
      const replicas = app.replicas;
      if (router === undefined && weight !== undefined && replicas !== undefined) {
        const needed = replicasForWeight(weight);
        problems.when(replicas < needed, `${path}.replicas`,
          () => `is ${replicas}, too few for setWeight ${weight} without a traffic router: Argo Rollouts v1.9.1 then weights by pod ` +
            `counts and never rounds a canary down to 0 pods, so the step puts 1 of ${replicas} pods (${Math.round(100 / replicas)} %) ` +
            `on the new version instead of ${weight} %. Set replicas to at least ${needed}, raise the smallest setWeight, or name a ` +
            'canary.trafficRouter.');
      }
    }
  },
};

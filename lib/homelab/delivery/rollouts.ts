/**
 * The Rollouts part of the delivery (see lib/config/delivery/rollouts.ts): the `argo-rollouts` Application, and one
 * Application per app of `delivery.apps` (the app tier's generated apps), whose manifests are written to
 * `appDistFolder(app)` with a generated `kustomization.yaml`, and read through the app's own overlay directory.
 */
import { DELIVERY_APPLICATIONS } from '../../shared/application-names';
import * as path from 'path';
import { ApiObject, Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { ARGO_ROLLOUTS_VERSION, CanaryStep } from '../../config/delivery/rollouts';
import { canaryStepsOf, replicasOf } from '../../config/delivery/rollouts-rules';
import type { ResolvedDeliveryAppConfig } from '../../config/delivery/types';
import { HomelabApplication } from '../../constructs/argocd/homelab-application';
import { AppPodSettings, RollingAppWorkload } from '../../constructs/delivery/app-workload';
import { AppPodMonitor } from '../../constructs/delivery/app-workload-monitor';
import { ARGO_ROLLOUTS_NAMESPACE, argoRolloutsKustomization } from '../../constructs/delivery/argo-rollouts-install';
import { CanaryAnalysisTemplate } from '../../constructs/delivery/canary-analysis-template';
import { CanaryRollout, CanaryRolloutStep } from '../../constructs/delivery/canary-rollout';
import {
  APP_E2E_FILE, APP_TIER_LABEL, appDistFolder, canaryServiceName, DELIVERY_DIST, e2eAnalysisTemplateName, stableServiceName,
} from '../../shared/delivery-layout';
import { goDurationSeconds } from '../../shared/duration';
import type { OutputFiles } from '../../output/output-tree';
import { podSecurityNamespaceMetadata } from '../../shared/pod-security';
import { SYNC_WAVE_ANNOTATION } from '../../shared/sync-waves';
import { prometheusStack } from '../backup-checks';
import { appTierWaveAfter, DeliveryContext, DeliveryPart, waveAfter } from './parts';

/** Name of the Application that installs the Argo Rollouts controller. */
export const ARGO_ROLLOUTS_APPLICATION = DELIVERY_APPLICATIONS.argoRollouts;

/** The folder of the controller's kustomization, relative to `dist/`. */
export const ARGO_ROLLOUTS_DIST = `${DELIVERY_DIST.controllers}/${ARGO_ROLLOUTS_APPLICATION}`;

/** Files of an app's folder, relative to it. */
export const APP_FILES = { workload: 'workload.yaml', services: 'services.yaml', analysis: 'analysis.yaml', monitoring: 'pod-monitor.yaml' } as const;

/** The app's own directory in the homelab repository (`overlayPath`, default `k8s/apps/<name>`). */
export function overlayPathOf(name: string, app: ResolvedDeliveryAppConfig): string {
  return app.overlayPath ?? `k8s/apps/${name}`;
}

/**
 * The one-line kustomization the app's directory holds (written once by hand when the app adopts the flow): the
 * generated folder as its only resource. Argo CD builds the overlay; Image Updater writes `.argocd-source-<app>.yaml`
 * next to it, outside the generated tree, so `npm run check` stays green (research §7.1).
 */
export function overlayKustomization(overlayPath: string, distPath: string, app: string): Record<string, unknown> {
  const generated = distPath === '.' ? appDistFolder(app) : path.posix.join(distPath, appDistFolder(app));
  return { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [path.posix.relative(overlayPath, generated)] };
}

/** The annotations that would make a canary app's sync multi-step, so that a paused Rollout holds it. */
const MULTI_STEP_ANNOTATIONS = ['argocd.argoproj.io/hook', SYNC_WAVE_ANNOTATION] as const;

export function defineRollouts(scope: Construct, ctx: DeliveryContext): DeliveryPart {
  const apps = Object.entries(ctx.delivery.apps).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (apps.length === 0) return { applications: [], files: [], secrets: [], configPaths: new Map() };
  const base = { project: ctx.project, repo: ctx.repo };
  const stack = prometheusStack([...ctx.applications.values()]);
  const applications: HomelabApplication[] = [];
  const files: [ApiObject, string][] = [];
  const extraFiles: OutputFiles = new Map();
  const configPaths = new Map<string, string>();
  const overlays = new Map<string, string>();

  let controller: HomelabApplication | undefined;
  if (apps.some(([, a]) => a.delivery === 'canary')) {
    controller = new HomelabApplication(scope, 'ArgoRollouts', {
      ...base,
      name: ARGO_ROLLOUTS_APPLICATION,
      sources: [{ kind: 'git-path', path: ctx.repo.distFile(ARGO_ROLLOUTS_DIST) }],
      namespace: ARGO_ROLLOUTS_NAMESPACE,
      // Analyses query Prometheus; the controller is in place, and healthy, before the first app that needs it.
      syncWave: waveAfter(ARGO_ROLLOUTS_APPLICATION, stack ? [stack.app] : []),
      dependsOn: stack ? [stack.app] : [],
      // The Rollout and AnalysisRun CRDs are large; server-side apply keeps them out of the last-applied annotation.
      syncOptions: ['CreateNamespace', 'ServerSideApply'],
      // install.yaml (v1.9.1) runs the controller non-root, read-only, without capabilities, RuntimeDefault seccomp.
      managedNamespaceMetadata: podSecurityNamespaceMetadata('restricted'),
      clusterResources: ['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding'],
    });
    applications.push(controller);
    configPaths.set(controller.name, 'delivery.rollouts');
    extraFiles.set(`${ARGO_ROLLOUTS_DIST}/kustomization.yaml`, [argoRolloutsKustomization(ARGO_ROLLOUTS_VERSION)]);
  }

  const prometheusAddress = ctx.delivery.rollouts.prometheusAddress ?? (stack ? `http://prometheus-operated.${stack.app.namespace}.svc:9090` : undefined);
  const policies = ctx.applications.get(DELIVERY_APPLICATIONS.kyvernoPolicies);
  const ingressNginx = [...ctx.applications.values()].find((a) => a.sources.some((s) => s.kind === 'helm-chart' && s.chart === 'ingress-nginx'));
  const pullHost = ctx.delivery.registry.pullHost ?? new URL(ctx.forgejo.inClusterHttpUrl).host;

  for (const [name, app] of apps) {
    const where = `delivery.apps.${name}`;
    if (ctx.applications.has(name)) {
      throw new Error(`${where}: an Argo CD Application '${name}' already exists (argocd.applications or a generated one); rename the app.`);
    }
    const namespace = app.namespace ?? name;
    const appScope = new Construct(scope, `App-${name}`);
    const folder = appDistFolder(name);
    const written = new Set<string>();
    const write = (obj: ApiObject, file: string) => {
      files.push([obj, `${folder}/${file}`]);
      written.add(file);
    };
    const pod: AppPodSettings = {
      name, namespace, image: `${pullHost}/${app.image}:${app.tag}`, port: app.port, healthPath: app.healthPath,
      runAsUser: app.runAsUser, cpuRequest: app.cpuRequest, memory: app.memory,
    };

    if (app.delivery === 'canary') {
      if (prometheusAddress === undefined) {
        throw new Error(`${where}: a canary's analysis queries Prometheus, and no Application of the catalog installs kube-prometheus-stack. ` +
          'Set delivery.rollouts.prometheusAddress, or add the chart.');
      }
      const analysis = app.canary?.analysis;
      const template = new CanaryAnalysisTemplate(appScope, 'Analysis', {
        app: name, namespace, prometheusAddress,
        successRateMin: analysis?.successRateMin ?? 0.99,
        latencyP95MaxMs: analysis?.latencyP95MaxMs ?? 500,
        interval: analysis?.interval ?? '1m',
        count: analysis?.count ?? 5,
        failureLimit: analysis?.failureLimit ?? 1,
        successRateQuery: analysis?.successRateQuery,
        latencyQuery: analysis?.latencyQuery,
      });
      write(template.resource, APP_FILES.analysis);
      const nginx = app.canary?.trafficRouter?.nginx;
      const rollout = new CanaryRollout(appScope, 'Rollout', {
        app: pod,
        replicas: replicasOf(app),
        stableServiceName: stableServiceName(name),
        canaryServiceName: canaryServiceName(name),
        steps: canaryStepsOf(app).map((s) => rolloutStep(s, template.name, e2eAnalysisTemplateName(name))),
        nginx: nginx ? { host: nginx.host, ingressClassName: nginx.ingressClassName } : undefined,
      });
      write(rollout.resource, APP_FILES.workload);
      write(rollout.stableService.resource, APP_FILES.services);
      write(rollout.canaryService.resource, APP_FILES.services);
      if (rollout.ingress) write(rollout.ingress, APP_FILES.services);
      singleStepSync(appScope, where, namespace);
    } else {
      const workload = new RollingAppWorkload(appScope, 'Workload', { app: pod, replicas: replicasOf(app), serviceName: stableServiceName(name) });
      write(workload.deployment, APP_FILES.workload);
      write(workload.service.resource, APP_FILES.services);
    }
    if (stack) {
      const monitor = new AppPodMonitor(appScope, 'PodMonitor', { app: name, namespace, metricsPath: app.metricsPath, selectorLabels: stack.selectorLabels });
      write(monitor.resource, APP_FILES.monitoring);
    }

    const resources = [...written, ...(app.e2e ? [APP_E2E_FILE] : [])].sort();
    extraFiles.set(`${folder}/kustomization.yaml`, [{ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources }]);

    const dependsOn = [
      ...(app.delivery === 'canary' && controller ? [controller] : []),
      ...(stack ? [stack.app] : []),
      ...(policies ? [policies] : []),
      ...(app.canary?.trafficRouter?.nginx && ingressNginx ? [ingressNginx] : []),
    ];
    const application = new HomelabApplication(appScope, 'Application', {
      ...base,
      name,
      // The app's own directory: a kustomization over the generated folder (no `directory` block, so Argo CD builds it
      // with kustomize), where Image Updater's write-back lands outside the generated tree.
      sources: [{ kind: 'git-path', path: overlayPathOf(name, app) }],
      namespace,
      // The app tier, after the whole platform: an aborted canary or a failed E2E hook holds no platform wave.
      syncWave: appTierWaveAfter(where, dependsOn),
      appTier: true,
      dependsOn,
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: {
        labels: { ...podSecurityNamespaceMetadata('restricted').labels, [APP_TIER_LABEL.key]: APP_TIER_LABEL.value },
      },
    });
    applications.push(application);
    configPaths.set(name, `${where}.overlayPath`);
    overlays.set(name, ctx.repo.distFile(folder));
  }
  return { applications, files, extraFiles, secrets: [], configPaths, overlays };
}

/** A config step as the Rollout's: analysis steps run the app's template, e2e steps the E2E part's. */
function rolloutStep(step: CanaryStep, analysisTemplate: string, e2eTemplate: string): CanaryRolloutStep {
  if ('setWeight' in step) return { setWeight: step.setWeight };
  if ('pause' in step) return { pause: { duration: step.pause.duration === undefined ? undefined : Duration.seconds(goDurationSeconds(step.pause.duration)) } };
  if ('analysis' in step) return { analysis: { templateNames: [analysisTemplate] } };
  return { analysis: { templateNames: [e2eTemplate] } };
}

/**
 * A canary app's sync must be single-step: inside a sync, Argo CD waits on a non-hook resource until it is Healthy
 * (and fails it only when Degraded), and a paused Rollout is Suspended, so with a hook or a second wave the sync of a
 * paused canary would run until the sync timeout (gitops-engine in Argo CD v3.5.1, pkg/sync/sync_context.go; research
 * §2.5). Checked on the finished tree, since the E2E part writes into the same namespace after this one.
 */
function singleStepSync(scope: Construct, where: string, namespace: string): void {
  scope.node.addValidation({
    validate: () => Chart.of(scope).node.findAll()
      .filter((c): c is ApiObject => c instanceof ApiObject && c.metadata.namespace === namespace)
      .flatMap((obj) => {
        const annotations = (obj.toJson().metadata?.annotations ?? {}) as Record<string, string>;
        return MULTI_STEP_ANNOTATIONS.filter((a) => a in annotations).map((a) =>
          `${where}: ${obj.kind} '${obj.name}' in namespace '${namespace}' has the annotation ${a}: '${annotations[a]}', which makes the ` +
          'canary app\'s sync multi-step, so a paused Rollout (Suspended) would hold the sync until its timeout. Gate the canary with an ' +
          'analysis step instead, and remove the annotation.');
      }),
  });
}

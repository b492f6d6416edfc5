/**
 * The end-to-end gate of the delivery (ADR 0001 Part B, "Deployment verification"; config in
 * lib/config/delivery/e2e.ts): Playwright journeys in WebKit as a canary's analysis step, as a rolling app's PostSync
 * hook, and as the `e2e-smoke` Application's CronJobs with their alerts.
 */
import { ApiObject, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import type { ResolvedDeliveryConfig } from '../../config/delivery/types';
import { playwrightImageVersion } from '../../config/delivery/e2e';
import { HomelabApplication } from '../../constructs/argocd/homelab-application';
import { DumpStore } from '../../constructs/forgejo/dump-store';
import { E2eAnalysisTemplate } from '../../constructs/delivery/e2e-analysis-template';
import { E2ePostSyncJob } from '../../constructs/delivery/e2e-post-sync-job';
import { E2eSmokeAlerts } from '../../constructs/delivery/e2e-smoke-alerts';
import { E2eSmokeCronJob } from '../../constructs/delivery/e2e-smoke-cron-job';
import { PlaywrightRunProps, playwrightRunSecrets, PlaywrightSso } from '../../constructs/delivery/playwright-run';
import {
  APP_E2E_FILE, appDistFolder, canaryServiceName, DELIVERY_DIST, e2eAnalysisTemplateName, stableServiceName,
} from '../../shared/delivery-layout';
import { githubHttpsUrl, parseGithubSeed } from '../../shared/git-urls';
import { podSecurityNamespaceMetadata } from '../../shared/pod-security';
import { prometheusStack } from '../backup-checks';
import { GENERATED_APPLICATIONS } from '../validate-argocd-config';
import { DeliveryContext, DeliveryPart, DeliverySecretReference, EMPTY_PART, waveAfter } from './parts';

/** Name of the smoke Application, and of its folder under `delivery/`. */
export const E2E_SMOKE_APPLICATION = 'e2e-smoke';

/** The folder of the smoke Application's files, relative to `dist/`. */
export const E2E_SMOKE_DIST = `${DELIVERY_DIST.controllers}/${E2E_SMOKE_APPLICATION}`;

/** Name of a smoke CronJob: `e2e-smoke-<journey set>`. */
export function e2eSmokeCronJobName(journeySet: string): string {
  return `${E2E_SMOKE_APPLICATION}-${journeySet}`;
}

/** Name of a rolling app's PostSync Job. */
export function e2ePostSyncJobName(app: string): string {
  return `${app}-e2e`;
}

type E2eConfig = ResolvedDeliveryConfig['e2e'];
type ObjectStoreConfig = NonNullable<E2eConfig['artifacts']>['objectStore'];

/** The artifacts folder of `store`, as the constructs take it (rclone's S3 remote). */
function artifactsStore(store: ObjectStoreConfig, folder: string): DumpStore {
  const secret = store.credentials.secretName;
  return {
    endpointUrl: store.endpointURL,
    bucket: store.bucket,
    folder: store.path === undefined ? folder : `${store.path}/${folder}`,
    accessKeyId: { name: secret, key: store.credentials.accessKeyIdKey },
    secretAccessKey: { name: secret, key: store.credentials.secretAccessKeyKey },
    region: store.credentials.regionKey === undefined ? undefined : { name: secret, key: store.credentials.regionKey },
    endpointCa: store.caSecret,
  };
}

/** The in-cluster URL of a Service. */
function serviceUrl(service: string, namespace: string, port: number): string {
  return `http://${service}.${namespace}.svc.cluster.local:${port}`;
}

export function defineE2e(scope: Construct, ctx: DeliveryContext): DeliveryPart {
  const { delivery } = ctx;
  const e2e = delivery.e2e;
  const gated = Object.keys(delivery.apps).sort().filter((name) => delivery.apps[name].e2e !== undefined);
  const journeys = Object.keys(e2e.smoke.journeys).sort();
  if (gated.length === 0 && journeys.length === 0) return EMPTY_PART;
  // The config rules require a store as soon as a journey runs (lib/config/delivery/e2e-rules.ts).
  const artifacts = artifactsStore(e2e.artifacts!.objectStore, e2e.artifacts!.folder);

  const sso: PlaywrightSso | undefined = e2e.sso === undefined ? undefined : {
    scenario: e2e.sso.scenario,
    url: e2e.sso.url,
    username: { name: e2e.sso.credentialsSecret, key: e2e.sso.usernameKey },
    password: { name: e2e.sso.credentialsSecret, key: e2e.sso.passwordKey },
  };
  const run = (scenarios: readonly string[], baseURL: string, withSso: boolean, runFolder: string): PlaywrightRunProps => ({
    image: e2e.image,
    playwrightVersion: playwrightImageVersion(e2e.image),
    suite: {
      repoURL: e2e.suite.repoURL ?? githubHttpsUrl(parseGithubSeed(ctx.config.git.githubSeedUrl)),
      revision: e2e.suite.revision ?? ctx.repo.targetRevision,
      path: e2e.suite.path,
      credentialsSecret: e2e.suite.credentialsSecret,
    },
    scenarios,
    baseURL,
    sso: withSso ? sso : undefined,
    artifacts,
    runFolder,
    timeout: Duration.minutes(e2e.timeoutMinutes),
  });

  const files: [ApiObject, string][] = [];
  const secrets: DeliverySecretReference[] = [];
  const reference = (namespace: string, props: PlaywrightRunProps, usedBy: string) => {
    for (const s of playwrightRunSecrets(props)) secrets.push({ namespace, name: s.name, keys: s.keys, usedBy });
  };

  const gates = new Construct(scope, 'Gates');
  for (const name of gated) {
    const app = delivery.apps[name];
    const appE2e = app.e2e!;
    const namespace = app.namespace ?? name;
    const file = `${appDistFolder(name)}/${APP_E2E_FILE}`;
    if (app.delivery === 'canary') {
      // The canary Service selects only the new pods while the step runs. The SSO journey is left to the smoke run: its
      // OAuth callback goes to the public hostname, i.e. to the stable pods, so it would not test the canary.
      const props = run(appE2e.scenarios, serviceUrl(canaryServiceName(name), namespace, app.port), false, `${name}/canary`);
      const template = new E2eAnalysisTemplate(gates, name, { name: e2eAnalysisTemplateName(name), namespace, run: props });
      files.push([template.resource, file]);
      reference(namespace, props, `AnalysisTemplate ${namespace}/${template.name}`);
    } else {
      const baseURL = appE2e.baseURL ?? serviceUrl(stableServiceName(name), namespace, app.port);
      const props = run(appE2e.scenarios, baseURL, appE2e.sso, `${name}/post-sync`);
      const job = new E2ePostSyncJob(gates, name, { name: e2ePostSyncJobName(name), namespace, run: props });
      files.push([job.resource, file]);
      reference(namespace, props, `PostSync Job ${namespace}/${job.name}`);
    }
  }

  const namespace = e2e.smoke.namespace;
  const smoke = new Construct(scope, 'Smoke');
  const sets: [string, PlaywrightRunProps][] = [
    ...journeys.map((j): [string, PlaywrightRunProps] => {
      const journey = e2e.smoke.journeys[j];
      return [j, run(journey.scenarios, journey.baseURL, journey.sso, `smoke/${j}`)];
    }),
    ...gated.filter((name) => delivery.apps[name].e2e!.smoke).map((name): [string, PlaywrightRunProps] => {
      const app = delivery.apps[name];
      const baseURL = app.e2e!.baseURL ?? serviceUrl(stableServiceName(name), app.namespace ?? name, app.port);
      return [name, run(app.e2e!.scenarios, baseURL, app.e2e!.sso, `smoke/${name}`)];
    }),
  ].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (sets.length === 0) return { applications: [], files, secrets, configPaths: new Map() };

  const cronJobs = sets.map(([set, props]) => {
    const cronJob = new E2eSmokeCronJob(smoke, set, { name: e2eSmokeCronJobName(set), namespace, schedule: e2e.smoke.schedule, run: props });
    files.push([cronJob.resource, `${E2E_SMOKE_DIST}/${set}.yaml`]);
    return cronJob;
  });
  // One reference per Secret of the namespace: every set reads the same artifacts store, most the same SSO user.
  const smokeSecrets = new Map<string, Set<string>>();
  for (const [, props] of sets) {
    for (const s of playwrightRunSecrets(props)) smokeSecrets.set(s.name, new Set([...(smokeSecrets.get(s.name) ?? []), ...s.keys]));
  }
  for (const [name, keys] of [...smokeSecrets].sort(([a], [b]) => (a < b ? -1 : 1))) {
    secrets.push({ namespace, name, keys: [...keys].sort(), usedBy: `the E2E smoke CronJobs of ${namespace}` });
  }

  const applications = [...ctx.applications.values()];
  const stack = prometheusStack(applications);
  if (stack) {
    const alerts = new E2eSmokeAlerts(smoke, 'Alerts', { cronJobs, selectorLabels: stack.selectorLabels });
    files.push([alerts.resource, `${E2E_SMOKE_DIST}/alerts.yaml`]);
  }
  // The PrometheusRule needs the Prometheus Operator's CRD and the stack that reads it, and the Secrets come from the
  // SOPS Application. The journeys' targets are not dependencies: the apps sit in the last wave, and a smoke test must
  // not hold the bring-up; until they answer, the alerts' thresholds cover the gap.
  const sopsSecrets = ctx.applications.get(GENERATED_APPLICATIONS.sopsSecrets);
  const dependsOn = [...(stack ? [stack.app] : []), ...(sopsSecrets ? [sopsSecrets] : [])];
  const application = new HomelabApplication(smoke, 'Application', {
    name: E2E_SMOKE_APPLICATION,
    project: ctx.project,
    repo: ctx.repo,
    sources: [{ kind: 'git-path', path: ctx.repo.distFile(E2E_SMOKE_DIST) }],
    namespace,
    syncWave: waveAfter(`the Application '${E2E_SMOKE_APPLICATION}'`, dependsOn),
    syncOptions: ['CreateNamespace'],
    // The Playwright and rclone containers run restricted.
    managedNamespaceMetadata: podSecurityNamespaceMetadata('restricted'),
    dependsOn,
  });
  return { applications: [application], files, secrets, configPaths: new Map([[application.name, 'delivery.e2e.smoke']]) };
}

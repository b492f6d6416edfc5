/**
 * The build part of the delivery (see lib/config/delivery/build.ts): the generated `forgejo-runner` Application (a
 * Forgejo runner with a rootless BuildKit daemon, replacing the catalog's privileged Docker-in-Docker runner), the
 * build workflow application repositories copy, and the Talos patches the nodes need.
 */
import { DELIVERY_APPLICATIONS } from '../../shared/application-names';
import { Construct } from 'constructs';
import { HomelabApplication } from '../../constructs/argocd/homelab-application';
import { renderBuildWorkflow } from '../../constructs/delivery/build-workflow';
import { ForgejoRunner } from '../../constructs/delivery/forgejo-runner';
import { talosRegistryMirrorPatch, talosUserNamespacesPatch } from '../../constructs/delivery/talos-patches';
import { DELIVERY_DIST } from '../../shared/delivery-layout';
import { GENERATED_APPLICATIONS } from '../validate-argocd-config';
import { podSecurityNamespaceMetadata } from '../../shared/pod-security';
import { DeliveryContext, DeliveryPart, requiredApplication, waveAfter } from './parts';

/** Name of the generated runner Application, of its folder under `dist/delivery/`, and of its Deployment. */
export const RUNNER_APPLICATION = DELIVERY_APPLICATIONS.runner;

/**
 * The folder of the catalog's former `forgejo-runner` Application (a privileged Docker-in-Docker runner, ADR 0001 Part C
 * map: `k8s/infra/forgejo-runner/ → forgejo-runner w3`), which the generated runner replaces. Delete it from the homelab
 * repository once the new runner takes jobs; until then the coverage audit knows it is superseded.
 */
export const SUPERSEDED_RUNNER_PATH = 'k8s/infra/forgejo-runner';

/** The files the build part writes outside the Argo CD tree, relative to `dist/`. */
export const BUILD_FILES = {
  workflow: `${DELIVERY_DIST.workflows}/build.yaml`,
  registryMirror: `${DELIVERY_DIST.talos}/registry-mirror.yaml`,
  userNamespaces: `${DELIVERY_DIST.talos}/user-namespaces.yaml`,
} as const;

/**
 * The runner's namespace enforces Pod Security `privileged`: the BuildKit container's Unconfined seccomp and AppArmor
 * profiles are refused by `baseline` ("Seccomp profile must not be explicitly set to Unconfined"; AppArmor "must not
 * be set to unconfined", https://kubernetes.io/docs/concepts/security/pod-security-standards/). `warn` and `audit`
 * stay at `baseline`, so every apply names what goes beyond it.
 */
export const RUNNER_POD_SECURITY = { enforce: 'privileged', warn: 'baseline' } as const;

/** The in-cluster pull name: `delivery.registry.pullHost`, or Forgejo's in-cluster HTTP Service (`host:port`). */
export function registryPullHost(ctx: Pick<DeliveryContext, 'delivery' | 'forgejo'>): string {
  return ctx.delivery.registry.pullHost ?? new URL(ctx.forgejo.inClusterHttpUrl).host;
}

/** The URL the nodes reach the registry at: `delivery.registry.nodeEndpoint`, or the push name over HTTPS. */
export function registryNodeEndpoint(ctx: Pick<DeliveryContext, 'delivery'>): string {
  return ctx.delivery.registry.nodeEndpoint ?? `https://${ctx.delivery.registry.pushHost}`;
}

export function defineBuild(scope: Construct, ctx: DeliveryContext): DeliveryPart {
  const build = ctx.delivery.build;
  const registry = ctx.delivery.registry;
  const folder = `${DELIVERY_DIST.controllers}/${RUNNER_APPLICATION}`;
  // The registration token arrives as a SOPS secret: the runner's sync waits for the Application that delivers it.
  const secrets = requiredApplication(ctx, GENERATED_APPLICATIONS.sopsSecrets, `delivery.build (the ${RUNNER_APPLICATION} Application)`);
  const application = new HomelabApplication(scope, 'Application', {
    name: RUNNER_APPLICATION,
    project: ctx.project,
    repo: ctx.repo,
    sources: [{ kind: 'git-path', path: ctx.repo.distFile(folder) }],
    namespace: build.namespace,
    syncWave: waveAfter(`delivery.build (the ${RUNNER_APPLICATION} Application)`, [secrets]),
    dependsOn: [secrets],
    syncOptions: ['CreateNamespace'],
    managedNamespaceMetadata: podSecurityNamespaceMetadata(RUNNER_POD_SECURITY.enforce, RUNNER_POD_SECURITY.warn),
  });
  const runner = new ForgejoRunner(scope, 'Runner', {
    namespace: build.namespace,
    name: RUNNER_APPLICATION,
    forgejo: ctx.forgejo,
    runnerImage: build.runnerImage,
    buildkitImage: build.buildkitImage,
    cosignImage: build.cosignImage,
    label: build.runnerLabel,
    registrationTokenSecret: build.registrationTokenSecret,
    replicas: build.replicas,
    registryHosts: [registry.pushHost],
    runnerCpuRequest: build.runnerCpuRequest,
    runnerMemory: build.runnerMemory,
    buildkitCpuRequest: build.buildkitCpuRequest,
    buildkitMemoryRequest: build.buildkitMemoryRequest,
    buildkitMemoryLimit: build.buildkitMemoryLimit,
  });
  const file = `${folder}/${runner.name}.yaml`;
  return {
    applications: [application],
    configPaths: new Map([[application.name, 'delivery.build']]),
    files: [[runner.configMap, file], [runner.deployment, file]],
    extraFiles: new Map([
      [BUILD_FILES.workflow, renderBuildWorkflow({
        runnerLabel: build.runnerLabel,
        pushHost: registry.pushHost,
        cacheTag: build.cacheTag,
        secrets: {
          cosignKey: build.cosignKeySecret,
          cosignPassword: build.cosignPasswordSecret,
          registryUsername: build.registryUsernameSecret,
          registryToken: build.registryTokenSecret,
        },
      })],
      [BUILD_FILES.registryMirror, talosRegistryMirrorPatch(ctx.repo.distFile(BUILD_FILES.registryMirror), {
        pullHost: registryPullHost(ctx),
        nodeEndpoint: registryNodeEndpoint(ctx),
      })],
      [BUILD_FILES.userNamespaces, talosUserNamespacesPatch(ctx.repo.distFile(BUILD_FILES.userNamespaces))],
    ]),
    secrets: [{ namespace: build.namespace, name: build.registrationTokenSecret, keys: ['token'], usedBy: `ForgejoRunner ${runner.name} (registration)` }],
    networkWorkloads: [runner],
    podSecurityExceptions: runner.podSecurityExceptions,
    supersedes: [{ path: SUPERSEDED_RUNNER_PATH, by: application.name }],
  };
}

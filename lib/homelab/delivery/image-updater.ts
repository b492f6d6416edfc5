/**
 * The image-updater part of the delivery (see lib/config/delivery/image-updater.ts): Argo CD Image Updater installed
 * from its pinned release manifest, and one `ImageUpdater` per app of `delivery.apps` with `imageUpdates`, which
 * writes each new image to the GitHub seed as `.argocd-source-<app>.yaml` in the app's own directory.
 */
import { DELIVERY_APPLICATIONS } from '../../shared/application-names';
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { AppImageUpdater } from '../../constructs/delivery/app-image-updater';
import { ImageUpdaterInstall } from '../../constructs/delivery/image-updater-install';
import { HomelabApplication } from '../../constructs/argocd/homelab-application';
import { appOverlayPath, effectiveWriteBack, imageUpdaterGitRepository, isSshRepository } from '../../config/delivery/image-updater-rules';
import { DELIVERY_DIST } from '../../shared/delivery-layout';
import { OutputFiles } from '../../output/output-tree';
import { GENERATED_APPLICATIONS } from '../validate-argocd-config';
import { DeliveryContext, DeliveryPart, DeliverySecretReference, requiredApplication, waveAfter } from './parts';
import { KUBERNETES_API, NetworkFlow, outsideCluster, urlHost, urlPeer, urlPort } from '../../shared/network';

/** Name of the generated Application (and of its folder under `dist/delivery/`). */
export const IMAGE_UPDATER_APPLICATION = DELIVERY_APPLICATIONS.imageUpdater;

/** The folder of the updater's files, relative to `dist/`. */
export const IMAGE_UPDATER_DIST = `${DELIVERY_DIST.controllers}/${IMAGE_UPDATER_APPLICATION}`;

/**
 * The host (and port) pods pull app images from: `delivery.registry.pullHost`, or Forgejo's in-cluster HTTP endpoint.
 * The updater must name images exactly as the app's manifests do: the override file's `kustomize.images` entry matches
 * the manifests' image by that name.
 */
export function registryPullHost(ctx: Pick<DeliveryContext, 'delivery' | 'forgejo'>): string {
  return ctx.delivery.registry.pullHost ?? ctx.forgejo.inClusterHttpUrl.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
}

/** What the part defines, for the plan and tests. */
export interface ImageUpdaterPart extends DeliveryPart {
  readonly install: ImageUpdaterInstall;
  /** One per app with `imageUpdates`, by app name (sorted). */
  readonly updaters: readonly AppImageUpdater[];
}

export function defineImageUpdater(scope: Construct, ctx: DeliveryContext): ImageUpdaterPart {
  const { delivery, config } = ctx;
  const settings = delivery.imageUpdater;
  const namespace = ctx.project.namespace;
  if (ctx.applications.has(IMAGE_UPDATER_APPLICATION)) {
    throw new Error(`argocd.applications.${IMAGE_UPDATER_APPLICATION}: the name is taken by the Application that delivery.imageUpdater ` +
      'generates. Rename the catalog entry, or remove it and let delivery install the updater.');
  }
  const pullHost = registryPullHost(ctx);
  // Plain HTTP inside the cluster: Forgejo's in-cluster Service serves no TLS (ADR 0001 Part B, registry addressing).
  const apiUrl = `http://${pullHost}`;

  const install = new ImageUpdaterInstall(scope, 'Install', {
    version: settings.version,
    namespace,
    registries: [{ name: 'Forgejo in-cluster registry', prefix: pullHost, apiUrl, pullSecretName: settings.registryPullSecret }],
    checkInterval: settings.checkInterval,
    gitUser: settings.gitUser,
    gitEmail: settings.gitEmail,
  });

  const repository = imageUpdaterGitRepository(config, delivery);
  const updaters: AppImageUpdater[] = [];
  for (const name of Object.keys(delivery.apps).sort()) {
    const app = delivery.apps[name];
    const updates = app.imageUpdates;
    if (!updates) continue;
    updaters.push(new AppImageUpdater(scope, `App-${name}`, {
      namespace,
      applicationName: name,
      sourcePath: appOverlayPath(name, app),
      generatedPath: ctx.repo.distPath,
      image: `${pullHost}/${app.image}`,
      strategy: updates.strategy === 'digest' ? { kind: 'digest', tag: updates.tag! } : { kind: 'semver', constraint: updates.constraint! },
      allowTags: updates.allowTags,
      ignoreTags: updates.ignoreTags,
      writeBack: {
        repository,
        branch: config.git.targetRevision,
        credentialSecretName: settings.writeCredentialSecret,
        mode: effectiveWriteBack(delivery, app),
      },
    }));
  }

  // The write-back reaches Argo CD only through Forgejo's pull-mirror (after the cutover), and the credentials come
  // from SOPS: the updater is useful, and can start, only after both.
  const dependencies = [
    requiredApplication(ctx, GENERATED_APPLICATIONS.forgejoMirror, 'Argo CD Image Updater'),
    requiredApplication(ctx, GENERATED_APPLICATIONS.sopsSecrets, 'Argo CD Image Updater'),
  ];
  const application = new HomelabApplication(scope, 'Application', {
    project: ctx.project,
    repo: ctx.repo,
    name: IMAGE_UPDATER_APPLICATION,
    sources: [{ kind: 'git-path', path: ctx.repo.distFile(IMAGE_UPDATER_DIST) }],
    namespace,
    syncWave: waveAfter(`Application '${IMAGE_UPDATER_APPLICATION}'`, dependencies),
    dependsOn: dependencies,
    clusterResources: install.clusterResources,
  });

  const configFile = 'argocd-image-updater-config.yaml';
  const files: [ApiObject, string][] = [[install.configPatch, `${IMAGE_UPDATER_DIST}/${configFile}`]];
  const resources: string[] = [];
  for (const u of updaters) {
    const file = `image-updater-${u.name}.yaml`;
    files.push([u.resource, `${IMAGE_UPDATER_DIST}/${file}`]);
    resources.push(file);
  }
  const extraFiles: OutputFiles = new Map([[`${IMAGE_UPDATER_DIST}/kustomization.yaml`, [install.kustomization(resources, configFile)]]]);

  const usedBy = 'Argo CD Image Updater';
  const secrets: DeliverySecretReference[] = [
    { namespace, name: settings.registryPullSecret, keys: ['.dockerconfigjson'], usedBy: `${usedBy} (registries.conf ${pullHost})` },
  ];
  if (updaters.length > 0) {
    // v1.3.0 pkg/argocd/gitcreds.go getCredsFromSecret: SSH URLs read `sshPrivateKey`, HTTPS ones `username` and `password`.
    secrets.push({ namespace, name: settings.writeCredentialSecret, keys: isSshRepository(repository) ? ['sshPrivateKey'] : ['password', 'username'],
      usedBy: `${usedBy} (git write-back to ${repository})` });
  }
  const networkFlows = updaterFlows(ctx, install, repository, updaters);
  return { applications: [application], configPaths: new Map([[application.name, 'delivery.imageUpdater']]), files, extraFiles, secrets, networkFlows, install, updaters };
}

/**
 * The controller's connections (its namespace, Argo CD's, is default-deny): the Kubernetes API (its Roles: Applications,
 * ImageUpdaters, Secrets, ConfigMaps, leases), the registry it reads (Forgejo's pods when the pull host is Forgejo's
 * in-cluster Service), and GitHub for the write-back (git over HTTPS or SSH; the REST API on 443 for pull requests).
 */
function updaterFlows(ctx: DeliveryContext, install: ImageUpdaterInstall, repository: string,
  updaters: readonly AppImageUpdater[]): NetworkFlow[] {
  const from = install.peer;
  const flows: NetworkFlow[] = [{ from, to: KUBERNETES_API, ports: [], reason: 'ImageUpdaterInstall: the controller watches Applications and ImageUpdaters' }];
  for (const r of install.registries) {
    const forgejoHost = urlHost(ctx.forgejo.inClusterHttpUrl);
    const toForgejo = urlHost(r.apiUrl) === forgejoHost && urlPort(r.apiUrl).port === urlPort(ctx.forgejo.inClusterHttpUrl).port;
    flows.push(toForgejo
      ? { from, to: ctx.forgejo.peer, ports: [{ port: ctx.forgejo.httpPort, name: 'http' }], reason: `ImageUpdaterInstall.registries: ${r.prefix} (Forgejo's registry)` }
      : { from, to: urlPeer(r.apiUrl, 'registry'), ports: [urlPort(r.apiUrl)], reason: `ImageUpdaterInstall.registries: ${r.prefix}` });
  }
  if (updaters.length > 0) {
    flows.push({ from, to: outsideCluster(`${urlHost(repository)} (git write-back)`), ports: [urlPort(repository)],
      reason: `AppImageUpdater.writeBack: ${updaters.map((u) => u.name).join(', ')} to ${repository}` });
    const prs = updaters.filter((u) => u.writeBack.mode === 'pull-request');
    if (prs.length > 0) {
      flows.push({ from, to: outsideCluster('api.github.com (pull requests)'), ports: [{ port: 443, name: 'https' }],
        reason: `AppImageUpdater.writeBack: pull requests for ${prs.map((u) => u.name).join(', ')}` });
    }
  }
  return flows;
}

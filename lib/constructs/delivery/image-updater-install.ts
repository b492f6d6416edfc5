import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { isGoDuration } from '../../shared/duration';
import { dnsLabelProblem, dnsSubdomainProblem } from '../../shared/names';
import { ClusterScopedKind } from '../../shared/cluster-resources';
import { PodPeer, podPeer } from '../../shared/network';

/** A registry the updater reads tags and digests from, as one entry of its `registries.conf`. */
export interface ImageUpdaterRegistry {
  /** Informational name of the registry (`name`). */
  readonly name: string;
  /** Host (and port) that image names start with (`prefix`), e.g. `forgejo-http.cicd.svc.cluster.local:3000`. */
  readonly prefix: string;
  /** The registry's API base URL (`api_url`), `http://` for a registry served in plain HTTP inside the cluster. */
  readonly apiUrl: string;
  /** A `kubernetes.io/dockerconfigjson` Secret in the updater's namespace with read access (`credentials: pullsecret:<ns>/<name>`). */
  readonly pullSecretName: string;
}

/** Properties for `ImageUpdaterInstall`. */
export interface ImageUpdaterInstallProps {
  /** The release tag whose `config/install.yaml` is installed, e.g. `v1.3.0`. */
  readonly version: string;
  /**
   * The namespace of Argo CD's Applications, where the updater runs and reads its `ImageUpdater`s and Secrets.
   * @default 'argocd'
   */
  readonly namespace?: string;
  /**
   * The registries the updater reads.
   * @default [] - the updater infers each registry from the image name, over HTTPS
   */
  readonly registries?: readonly ImageUpdaterRegistry[];
  /**
   * How often the updater checks every `ImageUpdater` (`interval`), a Go duration.
   * @default '2m0s'
   */
  readonly checkInterval?: string;
  /**
   * Author name of write-back commits (`git.user`).
   * @default 'argocd-image-updater'
   */
  readonly gitUser?: string;
  /**
   * Author e-mail of write-back commits (`git.email`).
   * @default 'noreply@argoproj.io'
   */
  readonly gitEmail?: string;
}

/** The upstream `config/install.yaml` of a release, served by raw.githubusercontent.com from the tag. */
export function imageUpdaterInstallUrl(version: string): string {
  return `https://raw.githubusercontent.com/argoproj-labs/argocd-image-updater/${version}/config/install.yaml`;
}

/**
 * Argo CD Image Updater from its release manifest, pinned to a tag, with its configuration patched in: a
 * kustomization over `config/install.yaml` plus a strategic-merge patch of ConfigMap `argocd-image-updater-config`.
 *
 * Facts from argoproj-labs/argocd-image-updater v1.3.0 `config/install.yaml`: namespaced objects carry no namespace
 * (the kustomization sets it), the ClusterRoleBindings' subjects say `namespace: argocd`, the controller Deployment
 * `argocd-image-updater-controller` (image `quay.io/argoprojlabs/argocd-image-updater:v1.3.0`, non-root, read-only root
 * file system, requests 250m/512Mi) reads `interval`, `git.user` and `git.email` from that ConfigMap as environment
 * variables and mounts its `registries.conf` key at `/app/config/registries.conf`; its Roles are namespaced, so it sees
 * only its own namespace.
 */
export class ImageUpdaterInstall extends Construct {
  public readonly version: string;
  public readonly namespace: string;
  public readonly registries: readonly ImageUpdaterRegistry[];
  public readonly checkInterval: string;
  public readonly gitUser: string;
  public readonly gitEmail: string;
  /** The pinned release manifest, a remote resource of the kustomization. */
  public readonly installUrl: string;
  /** The patch of ConfigMap `argocd-image-updater-config` (install.yaml defines it empty). */
  public readonly configPatch: k8s.KubeConfigMap;
  /** Cluster-scoped kinds install.yaml defines: the `ImageUpdater` CRD and the metrics auth/reader RBAC. */
  public readonly clusterResources: readonly ClusterScopedKind[] = ['ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition'];

  constructor(scope: Construct, id: string, props: ImageUpdaterInstallProps) {
    super(scope, id);
    this.version = props.version;
    this.namespace = props.namespace ?? 'argocd';
    this.registries = [...(props.registries ?? [])];
    this.checkInterval = props.checkInterval ?? '2m0s';
    this.gitUser = props.gitUser ?? 'argocd-image-updater';
    this.gitEmail = props.gitEmail ?? 'noreply@argoproj.io';
    this.validate();
    this.installUrl = imageUpdaterInstallUrl(this.version);

    this.configPatch = new k8s.KubeConfigMap(this, 'Config', {
      metadata: { name: 'argocd-image-updater-config' },
      data: {
        'interval': this.checkInterval,
        'git.user': this.gitUser,
        'git.email': this.gitEmail,
        ...(this.registries.length > 0 ? { 'registries.conf': this.registriesConf() } : {}),
      },
    });
  }

  /** The controller's pods, by the label install.yaml's Deployment selects them with (v1.3.0). */
  public get peer(): PodPeer {
    return podPeer(this.namespace, 'argocd-image-updater-controller', { 'control-plane': 'argocd-image-updater-controller' });
  }

  /** The kustomization of the install: the release manifest, `resources` (files next to it) and the ConfigMap patch. */
  public kustomization(resources: readonly string[], configPatchFile: string): Record<string, unknown> {
    return {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: this.namespace,
      resources: [this.installUrl, ...resources],
      patches: [{ path: configPatchFile }],
    };
  }

  /** `registries.conf` (docs/configuration/registries.md at v1.3.0): one entry per registry, fields in a fixed order. */
  private registriesConf(): string {
    const lines = ['registries:'];
    for (const r of this.registries) {
      lines.push(`- name: ${r.name}`, `  prefix: ${r.prefix}`, `  api_url: ${r.apiUrl}`,
        `  credentials: pullsecret:${this.namespace}/${r.pullSecretName}`);
    }
    return `${lines.join('\n')}\n`;
  }

  private validate(): void {
    const fail = (message: string): never => {
      throw new Error(`${this.node.path}: ${message}`);
    };
    if (!/^v\d+\.\d+\.\d+$/.test(this.version)) fail(`'version' must be a release tag such as 'v1.3.0', got '${this.version}'.`);
    const nsProblem = dnsLabelProblem(this.namespace);
    if (nsProblem) fail(`'namespace' '${this.namespace}' ${nsProblem}.`);
    if (!isGoDuration(this.checkInterval)) fail(`'checkInterval' must be a Go duration such as '2m0s', got '${this.checkInterval}'.`);
    if (/[\n:]/.test(this.gitUser) || this.gitUser.trim() === '') fail(`'gitUser' must be a one-line name, got '${this.gitUser}'.`);
    const prefixes = new Set<string>();
    for (const r of this.registries) {
      if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(r.prefix)) fail(`registry '${r.name}': 'prefix' must be a host with an optional port, got '${r.prefix}'.`);
      if (prefixes.has(r.prefix)) fail(`registry prefix '${r.prefix}' is given twice; registries.conf needs each prefix once.`);
      prefixes.add(r.prefix);
      if (!/^https?:\/\/[^\s/@]+$/.test(r.apiUrl)) {
        fail(`registry '${r.name}': 'apiUrl' must be http(s)://HOST[:PORT] without a path or credentials, got '${r.apiUrl}'.`);
      }
      if (/[\n:#]/.test(r.name)) fail(`registry name '${r.name}' must be one line without ':' or '#' (it is written into YAML as is).`);
      const secretProblem = dnsSubdomainProblem(r.pullSecretName);
      if (secretProblem) fail(`registry '${r.name}': 'pullSecretName' '${r.pullSecretName}' ${secretProblem}.`);
    }
  }
}

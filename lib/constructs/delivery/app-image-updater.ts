import { Construct } from 'constructs';
import { ImageUpdater } from '../../../imports/image-updater-argocd-image-updater.argoproj.io';
import { COMMON_LABELS } from '../../shared/labels';
import { dnsLabelProblem, dnsSubdomainProblem } from '../../shared/names';

/** Which tag an update takes: the newest digest of one tag, or the highest release within a semver constraint. */
export type ImageUpdateStrategy =
  | { readonly kind: 'digest'; readonly tag: string }
  | { readonly kind: 'semver'; readonly constraint: string };

/** Where and how the updater records a new image in git. */
export interface GitWriteBack {
  /** The repository pushed to (overrides the Application's `repoURL`: v1.3.0 `pkg/argocd/update.go:1191-1193`). */
  readonly repository: string;
  /** The branch committed to, or the base branch of the pull request. */
  readonly branch: string;
  /** Secret in the `ImageUpdater`'s namespace with the write credential (`git:secret:<name>`). */
  readonly credentialSecretName: string;
  /** `commit`: push to `branch`; `pull-request`: push a branch and open a GitHub pull request into `branch`. */
  readonly mode: 'commit' | 'pull-request';
}

/** Properties for `AppImageUpdater`. */
export interface AppImageUpdaterProps {
  /** Namespace of the Application (and of the updater, which reads only its own namespace). */
  readonly namespace: string;
  /** Name of the Argo CD Application whose image is updated (matched exactly: no glob). */
  readonly applicationName: string;
  /**
   * Repo-relative source path of that Application: a Kustomize directory, where the updater writes the override file
   * `.argocd-source-<applicationName>.yaml`.
   */
  readonly sourcePath: string;
  /** Repo-relative path of the generated tree; the override file must land outside it (synthesis rewrites it wholesale). */
  readonly generatedPath: string;
  /** The image without tag or digest, as the Application's manifests name it, e.g. `forgejo-http.cicd.svc.cluster.local:3000/acme/hello`. */
  readonly image: string;
  readonly strategy: ImageUpdateStrategy;
  /**
   * Tags the updater may consider: `any` or `regexp:<RE2 expression>`.
   * @default - every tag
   */
  readonly allowTags?: string;
  /**
   * Tags never considered, as globs.
   * @default []
   */
  readonly ignoreTags?: readonly string[];
  readonly writeBack: GitWriteBack;
  /**
   * The image's alias in the updater's status and events.
   * @default - the Application's name
   */
  readonly alias?: string;
}

const ALIAS = /^[a-zA-Z0-9][a-zA-Z0-9-._]*$/;

/**
 * One Argo CD Image Updater `ImageUpdater` (v1alpha1, v1.3.0) for one Application: its image, the update strategy and
 * the git write-back. No `writeBackTarget` is set, so the updater writes its default file
 * `.argocd-source-<app>.yaml` (v1.3.0 `pkg/common/constants.go:24-26`, `pkg/argocd/update.go:1142-1152`) into the
 * Application's source path, and Argo CD merges it into a Kustomize source's `kustomize.images` when it renders
 * (argo-cd v3.5.1 `reposerver/repository/repository.go`). A directory source would be refused ("unsupported
 * application type", v1.3.0 `pkg/argocd/argocd.go:1250-1269`).
 */
export class AppImageUpdater extends Construct {
  public readonly name: string;
  public readonly namespace: string;
  public readonly applicationName: string;
  public readonly alias: string;
  /** The image with the tag part the updater reads as its constraint: the followed tag, or the semver range. */
  public readonly imageName: string;
  public readonly strategy: ImageUpdateStrategy;
  public readonly allowTags?: string;
  public readonly ignoreTags: readonly string[];
  public readonly writeBack: GitWriteBack;
  /** Repo-relative path of the file the updater writes. */
  public readonly writeBackFile: string;
  public readonly resource: ImageUpdater;

  constructor(scope: Construct, id: string, props: AppImageUpdaterProps) {
    super(scope, id);
    this.namespace = props.namespace;
    this.applicationName = props.applicationName;
    this.name = props.applicationName;
    this.alias = props.alias ?? props.applicationName;
    this.strategy = props.strategy;
    this.allowTags = props.allowTags;
    this.ignoreTags = [...(props.ignoreTags ?? [])];
    this.writeBack = props.writeBack;
    this.writeBackFile = `${props.sourcePath}/.argocd-source-${props.applicationName}.yaml`;
    this.imageName = `${props.image}:${props.strategy.kind === 'digest' ? props.strategy.tag : props.strategy.constraint}`;
    this.validate(props);

    this.resource = new ImageUpdater(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace, labels: { ...COMMON_LABELS } },
      spec: {
        applicationRefs: [{
          namePattern: this.applicationName,
          images: [{
            alias: this.alias,
            imageName: this.imageName,
            commonUpdateSettings: {
              updateStrategy: this.strategy.kind,
              allowTags: this.allowTags,
              ignoreTags: this.ignoreTags.length > 0 ? [...this.ignoreTags] : undefined,
            },
          }],
        }],
        writeBackConfig: {
          method: `git:secret:${this.writeBack.credentialSecretName}`,
          gitConfig: {
            repository: this.writeBack.repository,
            // Explicit: without it the branch comes from the Application's source whose repoURL equals `repository`,
            // and ours read Forgejo's mirror after the cutover (v1.3.0 pkg/argocd/git.go:150-171).
            branch: this.writeBack.branch,
            pullRequest: this.writeBack.mode === 'pull-request' ? { github: {} } : undefined,
          },
        },
      },
    });
  }

  private validate(props: AppImageUpdaterProps): void {
    const fail = (message: string): never => {
      throw new Error(`${this.node.path}: ${message}`);
    };
    const nameProblem = dnsLabelProblem(this.applicationName, 53);
    if (nameProblem) fail(`'applicationName' '${this.applicationName}' ${nameProblem}.`);
    const nsProblem = dnsLabelProblem(this.namespace);
    if (nsProblem) fail(`'namespace' '${this.namespace}' ${nsProblem}.`);
    if (!ALIAS.test(this.alias)) fail(`'alias' '${this.alias}' must match ${ALIAS.source} (the CRD's pattern).`);
    if (/[:@\s]/.test(props.image.replace(/^[^/]*\//, '')) || !props.image.includes('/')) {
      fail(`'image' must be REGISTRY/PATH without tag or digest, got '${props.image}'.`);
    }
    if (props.strategy.kind === 'digest' && !/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(props.strategy.tag)) {
      fail(`'strategy.tag' '${props.strategy.tag}' is not a container image tag.`);
    }
    if (props.strategy.kind === 'semver' && props.strategy.constraint.trim() === '') fail('\'strategy.constraint\' must not be empty.');
    // v1.3.0 registry-scanner/pkg/image/options.go ParseMatch: only 'any' and 'regexp:<re>'; anything else matches no tag.
    if (this.allowTags !== undefined && this.allowTags !== 'any' && !/^regexp:.+/.test(this.allowTags)) {
      fail(`'allowTags' must be 'any' or 'regexp:<expression>', got '${this.allowTags}': the updater matches no tag with anything else.`);
    }
    const secretProblem = dnsSubdomainProblem(this.writeBack.credentialSecretName);
    if (secretProblem) fail(`'writeBack.credentialSecretName' '${this.writeBack.credentialSecretName}' ${secretProblem}.`);
    // v1.3.0 pkg/argocd/pr_service.go commitChangesPR: SSH credentials are no SCMTokenProvider and cannot open a PR.
    if (this.writeBack.mode === 'pull-request' && !this.writeBack.repository.startsWith('https://')) {
      fail(`'writeBack.mode' 'pull-request' needs an https:// repository with a token, got '${this.writeBack.repository}'.`);
    }
    // v1.3.0 pkg/argocd/argocd.go:612-617: pull request mode refuses the 'base:head' branch form.
    if (this.writeBack.branch.includes(':') || this.writeBack.branch.trim() === '') {
      fail(`'writeBack.branch' must name one branch, got '${this.writeBack.branch}'.`);
    }
    for (const [prop, path] of [['sourcePath', props.sourcePath], ['generatedPath', props.generatedPath]] as const) {
      if (path === '' || path.startsWith('/') || path.endsWith('/') || path.split('/').includes('..')) {
        fail(`'${prop}' must be a repo-relative path without '..' or a trailing '/', got '${path}'.`);
      }
    }
    const generated = props.generatedPath;
    if (this.writeBackFile.startsWith(`${generated}/`)) {
      fail(`the updater would write '${this.writeBackFile}', inside the generated tree '${generated}': synthesis rewrites that ` +
        'tree wholesale (deleting the file and rolling the image back) and its drift check fails on it. Give the Application a ' +
        `'sourcePath' outside '${generated}'.`);
    }
  }
}

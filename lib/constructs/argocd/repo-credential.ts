import { Construct } from 'constructs';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';

/** Properties for `RepoCredential`. */
export interface RepoCredentialProps {
  /** Repository URL; must be identical to the root app's `repoURL`, or Argo CD will not use the credential. */
  readonly url: string;
  /**
   * Namespace of Argo CD.
   * @default 'argocd'
   */
  readonly namespace?: string;
  /**
   * Name of the Secret.
   * @default 'homelab-repo'
   */
  readonly name?: string;
  /**
   * How Argo CD authenticates: an SSH deploy key (the GitHub seed), or an HTTP token (Forgejo in-cluster).
   * @default 'ssh'
   */
  readonly auth?: 'ssh' | 'http-token';
  /**
   * User name sent with an HTTP token.
   * @default 'argocd'
   */
  readonly username?: string;
  /**
   * Local file the runbook reads the key or token from at apply time.
   * @default '~/.ssh/argocd_seed'
   */
  readonly secretFile?: string;
  /**
   * When the runbook checks `secretFile`: before the first change, or just before this credential is applied (for
   * a token of a git host the runbook itself installs earlier, which cannot exist on a bare cluster).
   * @default 'preflight'
   */
  readonly secretFileCheckedAt?: 'preflight' | 'step';
}

/**
 * Argo CD's repository credential, as a kustomize `secretGenerator`: the output names the Secret, its label,
 * `type` and `url`, and the *file* the key is read from; the runbook copies the local key into a private
 * temporary folder at apply time. No key or token is ever written to the output or committed.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/declarative-setup/#repositories
 */
export class RepoCredential extends Construct implements IBootstrapComponent {
  public readonly url: string;
  public readonly namespace: string;
  public readonly name: string;
  public readonly auth: 'ssh' | 'http-token';
  public readonly secretFile: string;
  public readonly secretFileCheckedAt: 'preflight' | 'step';
  /** Key of the Secret that receives the file content. */
  public readonly secretKey: 'sshPrivateKey' | 'password';
  /** A kustomization whose `secretGenerator` reads the local file the runbook copies in first. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: RepoCredentialProps) {
    super(scope, id);
    this.url = props.url;
    this.namespace = props.namespace ?? 'argocd';
    this.name = props.name ?? 'homelab-repo';
    this.auth = props.auth ?? 'ssh';
    this.secretFile = props.secretFile ?? '~/.ssh/argocd_seed';
    this.secretFileCheckedAt = props.secretFileCheckedAt ?? 'preflight';
    this.secretKey = this.auth === 'ssh' ? 'sshPrivateKey' : 'password';

    const literals = ['type=git', `url=${this.url}`];
    if (this.auth === 'http-token') literals.push(`username=${props.username ?? 'argocd'}`);
    this.bootstrapRequirements = {
      kustomization: {
        remoteResources: [],
        namespace: this.namespace,
        extra: {
          secretGenerator: [{
            name: this.name,
            files: [this.secretKey],
            literals,
            options: {
              disableNameSuffixHash: true,
              labels: { 'argocd.argoproj.io/secret-type': 'repository', 'app.kubernetes.io/part-of': 'argocd' },
            },
          }],
        },
      },
      preconditions: [{
        kind: 'local-file',
        variable: this.auth === 'ssh' ? 'SEED_DEPLOY_KEY' : 'FORGEJO_READ_TOKEN',
        defaultPath: this.secretFile,
        hint: this.auth === 'ssh'
          ? `Create a read-only deploy key: ssh-keygen -t ed25519 -f ${this.secretFile} -N "" and add the .pub to the GitHub repository (Settings > Deploy keys).`
          : 'Create a read-only Forgejo access token for Argo CD and save it in that file (chmod 600).',
        copyAs: this.secretKey,
        format: this.auth === 'ssh' ? 'ssh-private-key' : 'token',
        ...(this.secretFileCheckedAt === 'step' ? { checkedAt: 'step' as const } : {}),
      }],
    };
  }
}

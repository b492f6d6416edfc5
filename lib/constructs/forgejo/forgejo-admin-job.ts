import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../../shared/security';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';
import { CURL_IMAGE, SecretKeyReference } from './forgejo-mirror-job';
import { ForgejoServer } from './forgejo-server';
import { INetworkWorkload, KUBERNETES_API, NetworkFlow, podPeer, PodPeer } from '../../shared/network';

/** uid of `git` in the rootless Forgejo image, and of `curl_user` / `curl_group` in `CURL_IMAGE`. */
const FORGEJO_UID = 1000;
const CURL_UID = 100;
const CURL_GID = 101;

/** Properties for `ForgejoAdminJob`. */
export interface ForgejoAdminJobProps {
  /** The Forgejo to provision; the Job runs its image and configuration, and calls its in-cluster API. */
  readonly forgejo: ForgejoServer;

  /**
   * User name of the administrator. Forgejo reserves `admin`.
   *
   * @default 'forgejo-admin'
   */
  readonly username?: string;

  /**
   * E-mail address of the administrator.
   *
   * @default 'forgejo-admin@localhost'
   */
  readonly email?: string;

  /**
   * Secret (key `password`) with the administrator's initial password. Inside a bootstrap step the runbook
   * generates it once and never changes it; the Job sets it only when it creates the user.
   *
   * @default 'forgejo-admin'
   */
  readonly passwordSecret?: string;

  /**
   * Where the Job stores the administrator's API token (the Secret the mirror Job reads). Inside a bootstrap
   * step the runbook creates it with a random placeholder once; the Job replaces the value when it is not a
   * working token of the administrator, and keeps it otherwise.
   *
   * @default { name: 'forgejo-admin-token', key: 'token' }
   */
  readonly tokenSecret?: SecretKeyReference;

  /**
   * Scopes of the token: what the mirror Job needs (create, rename and delete the mirror; create the owner).
   *
   * @default ['read:user', 'write:organization', 'write:repository']
   * @see https://forgejo.org/docs/latest/user/token-scope/
   */
  readonly tokenScopes?: string[];

  /**
   * Organisation that owns the mirror, created when missing. Equal to `username`, nothing is created.
   *
   * @default - no organisation; the mirror belongs to the administrator
   */
  readonly repoOwner?: string;

  /**
   * Name of the Job, its ServiceAccount and Role.
   *
   * @default 'forgejo-provision'
   */
  readonly name?: string;

  /**
   * How long the Job may run; it waits for Forgejo's API first.
   *
   * @default Duration.minutes(15)
   */
  readonly activeDeadline?: Duration;
}

/**
 * A Job that provisions Forgejo idempotently, after its Deployment: the administrator, a scoped API token
 * stored in a Secret, and the organisation that owns the mirror.
 *
 * 1. `ensure-admin` (Forgejo image, its configuration written to an `app.ini` by the image's
 *    `environment-to-ini`): `forgejo admin user create --admin --must-change-password=false` when
 *    `forgejo admin user list --admin` does not show the user; an existing user is left alone.
 * 2. `check-token` (curl): `GET /api/v1/user` with the stored token; a 200 naming the user keeps it.
 * 3. `issue-token` (Forgejo image), only when the check failed:
 *    `forgejo admin user generate-access-token --raw --scopes ...`.
 * 4. `store` (curl): a new token is written to the Secret with a merge `PATCH` (the Role allows `get` and
 *    `patch` on that one Secret, nothing else), then `POST /api/v1/orgs` creates the owner when
 *    `GET /api/v1/orgs/{owner}` is 404.
 *
 * Tokens and the password stay in the environment and in files on a memory volume; curl reads its headers
 * and bodies from files, so nothing secret is in a process's arguments except the initial password given to
 * `admin user create` inside the Job's own container.
 *
 * Sources: the CLI's `admin user create --admin --username --email --password --must-change-password` and
 * `admin user list --admin` (Forgejo command-line reference; the "create, else leave it" pattern is the one the
 * NixOS wiki's Forgejo page uses); `generate-access-token --username --token-name --scopes --raw` (cmd/
 * admin_user_generate_access_token.go, inherited from Gitea); `environment-to-ini --config`, which the rootless
 * image's docker/rootless/usr/local/bin/docker-setup.sh runs on every start; `POST /api/v1/orgs` with
 * `CreateOrgOption` `{ username, visibility }` (visibility `public`, `limited` or `private`).
 *
 * @see https://forgejo.org/docs/latest/admin/command-line/
 * @see https://forgejo.org/docs/latest/user/token-scope/
 * @see https://codeberg.org/forgejo/forgejo/src/branch/forgejo/docker/rootless/usr/local/bin/docker-setup.sh
 * @see https://forgejo.org/docs/latest/user/api-usage/
 */
export class ForgejoAdminJob extends Construct implements IBootstrapComponent, INetworkWorkload {
  public readonly name: string;
  public readonly namespace: string;
  public readonly username: string;
  public readonly email: string;
  /** The Forgejo it provisions. */
  public readonly forgejo: ForgejoServer;
  public readonly passwordSecret: string;
  public readonly tokenSecret: SecretKeyReference;
  public readonly tokenScopes: readonly string[];
  public readonly repoOwner?: string;
  public readonly activeDeadline: Duration;
  public readonly job: k8s.KubeJob;
  /** The password and the token placeholder generated once; the Job waited for. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: ForgejoAdminJobProps) {
    super(scope, id);
    this.forgejo = props.forgejo;
    const forgejo = props.forgejo;
    this.name = props.name ?? 'forgejo-provision';
    this.namespace = forgejo.namespace;
    this.username = props.username ?? 'forgejo-admin';
    this.email = props.email ?? 'forgejo-admin@localhost';
    this.passwordSecret = props.passwordSecret ?? 'forgejo-admin';
    this.tokenSecret = props.tokenSecret ?? { name: 'forgejo-admin-token', key: 'token' };
    this.tokenScopes = props.tokenScopes ?? ['read:user', 'write:organization', 'write:repository'];
    this.repoOwner = props.repoOwner;
    this.activeDeadline = props.activeDeadline ?? Duration.minutes(15);

    const userName = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,39}$/;
    if (!userName.test(this.username) || this.username.toLowerCase() === 'admin') {
      throw new Error(`${this.node.path}: 'username' must be a Forgejo user name other than 'admin' (letters, digits, '-', '_', '.'), ` +
        `got '${this.username}'.`);
    }
    if (!/^[^\s@]+@[^\s@]+$/.test(this.email)) {
      throw new Error(`${this.node.path}: 'email' must be an e-mail address such as 'admin@home.arpa', got '${this.email}'.`);
    }
    if (this.repoOwner !== undefined && !userName.test(this.repoOwner)) {
      throw new Error(`${this.node.path}: 'repoOwner' must be a Forgejo organisation name (letters, digits, '-', '_', '.'), got '${this.repoOwner}'.`);
    }
    if (this.tokenScopes.length === 0 || this.tokenScopes.some((s) => !/^(read|write):[a-z]+$/.test(s))) {
      throw new Error(`${this.node.path}: 'tokenScopes' must be non-empty scopes such as 'write:repository', got [${this.tokenScopes.join(', ')}].`);
    }

    const labels = { ...COMMON_LABELS, ...selectorLabels('forgejo-provision', this.name) };
    const metadata = { name: this.name, namespace: this.namespace, labels };
    const account = new k8s.KubeServiceAccount(this, 'ServiceAccount', { metadata, automountServiceAccountToken: false });
    const role = new k8s.KubeRole(this, 'Role', {
      metadata,
      // Only the token Secret, only read and patch: the runbook created it, so no `create` on Secrets.
      rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: [this.tokenSecret.name], verbs: ['get', 'patch'] }],
    });
    const binding = new k8s.KubeRoleBinding(this, 'RoleBinding', {
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.name },
      subjects: [{ kind: 'ServiceAccount', name: account.name, namespace: this.namespace }],
    });

    // In the server's order, not sorted: a variable such as `$(REDIS_PASSWORD)` in the Redis URLs is expanded only
    // from variables defined before it in the list.
    const forgejoEnv: k8s.EnvVar[] = Object.entries(forgejo.configEnv)
      .map(([name, v]) => ({ name, value: v.value, valueFrom: v.valueFrom }));
    const common: k8s.EnvVar[] = [
      { name: 'HOME', value: '/tmp' },
      { name: 'ADMIN_USER', value: this.username },
      { name: 'FORGEJO_URL', value: forgejo.inClusterHttpUrl },
      { name: 'SHARED_DIR', value: '/shared' },
    ];
    const resources = (memory: string) => ({
      requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('32Mi') },
      limits: { memory: k8s.Quantity.fromString(memory) },
    });
    const mounts = [{ name: 'tmp', mountPath: '/tmp' }, { name: 'shared', mountPath: '/shared' }];
    const forgejoContainer = (name: string, script: string, env: k8s.EnvVar[]): k8s.Container => ({
      name,
      image: forgejo.image,
      command: ['/bin/sh', '-c', script],
      env: [...common, { name: 'GITEA_WORK_DIR', value: '/tmp/forgejo' }, ...env, ...forgejoEnv],
      terminationMessagePolicy: 'FallbackToLogsOnError',
      volumeMounts: mounts,
      resources: resources('256Mi'),
      securityContext: restrictedContainerSecurityContext(FORGEJO_UID),
    });
    const curlContainer = (name: string, script: string, env: k8s.EnvVar[]): k8s.Container => ({
      name,
      image: CURL_IMAGE,
      command: ['/bin/sh', '-c', script],
      env: [...common, ...env],
      terminationMessagePolicy: 'FallbackToLogsOnError',
      volumeMounts: mounts,
      resources: resources('64Mi'),
      securityContext: restrictedContainerSecurityContext(CURL_UID, CURL_GID),
    });
    const storedToken: k8s.EnvVar = {
      name: 'STORED_TOKEN', valueFrom: { secretKeyRef: { name: this.tokenSecret.name, key: this.tokenSecret.key } },
    };

    this.job = new k8s.KubeJob(this, 'Resource', {
      metadata,
      spec: {
        backoffLimit: 6,
        activeDeadlineSeconds: this.activeDeadline.toSeconds(),
        template: {
          metadata: { labels },
          spec: {
            restartPolicy: 'Never',
            serviceAccountName: account.name,
            // Only the `store` container gets an API token, through its own projected volume.
            automountServiceAccountToken: false,
            // The Forgejo containers run as uid 1000, curl as 100: the shared files are group-readable by fsGroup.
            securityContext: { ...restrictedPodSecurityContext(CURL_UID, CURL_GID), fsGroup: CURL_GID },
            initContainers: [
              forgejoContainer('ensure-admin', ENSURE_ADMIN_SCRIPT, [
                { name: 'ADMIN_EMAIL', value: this.email },
                { name: 'ADMIN_PASSWORD', valueFrom: { secretKeyRef: { name: this.passwordSecret, key: 'password' } } },
              ]),
              curlContainer('check-token', CHECK_TOKEN_SCRIPT, [storedToken]),
              forgejoContainer('issue-token', ISSUE_TOKEN_SCRIPT, [
                { name: 'ISSUE_NAME', value: `${this.name}-mirror` },
                { name: 'ISSUE_SCOPES', value: this.tokenScopes.join(',') },
              ]),
            ],
            containers: [{
              ...curlContainer('store', STORE_SCRIPT, [
                storedToken,
                { name: 'NAMESPACE', value: this.namespace },
                { name: 'SA_DIR', value: '/var/run/secrets/kubernetes.io/serviceaccount' },
                { name: 'TARGET_NAME', value: this.tokenSecret.name },
                { name: 'TARGET_KEY', value: this.tokenSecret.key },
                { name: 'REPO_OWNER', value: this.repoOwner ?? this.username },
              ]),
              volumeMounts: [...mounts, { name: 'api-token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
            }],
            volumes: [
              { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('64Mi') } },
              { name: 'shared', emptyDir: { medium: 'Memory', sizeLimit: k8s.Quantity.fromString('1Mi') } },
              {
                name: 'api-token',
                projected: {
                  sources: [
                    { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
                    { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
                  ],
                },
              },
            ],
          },
        },
      },
    });
    this.job.addDependency(binding);

    this.bootstrapRequirements = {
      preconditions: [
        { kind: 'generated-secret', namespace: this.namespace, name: this.passwordSecret, key: 'password', bytes: 24 },
        // A random placeholder: no token of the user, so the Job issues one and patches it in.
        { kind: 'generated-secret', namespace: this.namespace, name: this.tokenSecret.name, key: this.tokenSecret.key, bytes: 20 },
      ],
      waits: [{
        kind: 'job-complete',
        namespace: this.namespace,
        job: this.name,
        timeoutSeconds: this.activeDeadline.toSeconds(),
        watched: [],
      }],
    };
  }

  /** The Job's pod, for network policies. */
  public get peer(): PodPeer {
    return podPeer(this.namespace, this.name, selectorLabels('forgejo-provision', this.name));
  }

  /** The Job calls Forgejo's API (`forgejo`) and stores the token it mints in a Secret through the Kubernetes API. */
  public get networkFlows(): NetworkFlow[] {
    return [
      { from: this.peer, to: this.forgejo.peer, ports: [{ port: this.forgejo.httpPort, name: 'http' }], reason: 'ForgejoAdminJob.forgejo: provisions through Forgejo\'s API' },
      { from: this.peer, to: KUBERNETES_API, ports: [], reason: `ForgejoAdminJob.tokenSecret: stores the token in Secret ${this.tokenSecret.name}` },
    ];
  }
}

/** Writes Forgejo's configuration from the FORGEJO__* environment, as the image's own start script does. */
const WRITE_INI = `mkdir -p "$HOME/forgejo/custom/conf"
ini="$HOME/forgejo/custom/conf/app.ini"
# docker/rootless/usr/local/bin/docker-setup.sh in the Forgejo repository runs the same command.
environment-to-ini --config "$ini" >/dev/null
`;

/**
 * `forgejo admin user create` fails for an existing user, so the list decides; an existing user keeps the
 * password a human may have changed. `--must-change-password` defaults to true for `create`; false keeps the
 * token usable and the Secret the password of record.
 */
export const ENSURE_ADMIN_SCRIPT = `set -eu
umask 077
${WRITE_INI}if forgejo --config "$ini" admin user list --admin |
  awk -v u="$ADMIN_USER" 'NR > 1 && $2 == u { found = 1 } END { exit !found }'; then
  echo "administrator $ADMIN_USER exists"
else
  forgejo --config "$ini" admin user create --admin \\
    --username "$ADMIN_USER" --email "$ADMIN_EMAIL" \\
    --password "$ADMIN_PASSWORD" --must-change-password=false
  echo "created administrator $ADMIN_USER"
fi
`;

/** Keeps a stored token that still authenticates as the administrator; waits for the API first. */
export const CHECK_TOKEN_SCRIPT = `set -eu
umask 007
printf 'Authorization: token %s\\n' "$STORED_TOKEN" > "$HOME/auth"
status=$(curl --silent --show-error --connect-timeout 10 \\
  --max-time 60 --retry 30 --retry-connrefused --retry-delay 10 \\
  --header @"$HOME/auth" --output "$HOME/user.json" \\
  --write-out '%{http_code}' "$FORGEJO_URL/api/v1/user")
if [ "$status" = 200 ] &&
  grep -Eq "\\"login\\": *\\"$ADMIN_USER\\"" "$HOME/user.json"; then
  echo "the stored token works for $ADMIN_USER; keeping it"
  touch "$SHARED_DIR/token-ok"
else
  echo "the stored token does not work (HTTP $status); issuing one"
fi
`;

/** Token names are unique per user, so a stale token of the same name is replaced by a dated one. */
export const ISSUE_TOKEN_SCRIPT = `set -eu
umask 007
[ -e "$SHARED_DIR/token-ok" ] && exit 0
${WRITE_INI}forgejo --config "$ini" admin user generate-access-token \\
  --username "$ADMIN_USER" --token-name "$ISSUE_NAME-$(date +%s)" \\
  --scopes "$ISSUE_SCOPES" --raw > "$SHARED_DIR/token"
echo "issued token $ISSUE_NAME for $ADMIN_USER"
`;

/** Patches a new token into the Secret, then makes sure the owner of the mirror exists. */
export const STORE_SCRIPT = `set -eu
umask 077
sa=$SA_DIR
api="https://kubernetes.default.svc/api/v1/namespaces/$NAMESPACE"
token="$STORED_TOKEN"
if [ -s "$SHARED_DIR/token" ]; then
  token=$(cat "$SHARED_DIR/token")
  printf 'Authorization: Bearer %s\\n' "$(cat "$sa/token")" > "$HOME/kube"
  printf '{"stringData":{"%s":"%s"}}' "$TARGET_KEY" "$token" |
    curl --silent --show-error --fail --cacert "$sa/ca.crt" \\
      --header @"$HOME/kube" --request PATCH --data-binary @- \\
      --header 'Content-Type: application/merge-patch+json' \\
      --output /dev/null "$api/secrets/$TARGET_NAME"
  echo "stored the new token in Secret $TARGET_NAME"
fi
printf 'Authorization: token %s\\n' "$token" > "$HOME/auth"
fj() {
  curl --silent --show-error --connect-timeout 10 --max-time 60 \\
    --header @"$HOME/auth" --header 'Content-Type: application/json' \\
    --output "$HOME/response.json" --write-out '%{http_code}' "$@"
}
if [ "$REPO_OWNER" = "$ADMIN_USER" ]; then
  echo "the mirror belongs to $ADMIN_USER"
  exit 0
fi
status=$(fj "$FORGEJO_URL/api/v1/orgs/$REPO_OWNER")
case "$status" in
  200) echo "organisation $REPO_OWNER exists" ;;
  404)
    status=$(printf '{"username":"%s","visibility":"private"}' \\
      "$REPO_OWNER" | fj --request POST --data-binary @- \\
      "$FORGEJO_URL/api/v1/orgs")
    if [ "$status" != 201 ]; then
      echo "Forgejo answered HTTP $status to POST /api/v1/orgs:" >&2
      cat "$HOME/response.json" >&2 || true
      exit 1
    fi
    echo "created organisation $REPO_OWNER"
    ;;
  *)
    echo "Forgejo answered HTTP $status to GET /api/v1/orgs/$REPO_OWNER" >&2
    exit 1
    ;;
esac
`;

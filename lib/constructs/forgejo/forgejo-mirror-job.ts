import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../../shared/security';
import { ForgejoEndpoint, GithubSeed, githubHttpsUrl } from '../../shared/git-urls';
import { isGoDuration } from '../../shared/duration';
import { INetworkWorkload, NetworkFlow, outsideCluster, podPeer, PodPeer, urlHost, urlPort } from '../../shared/network';

/**
 * Image with `sh` and `curl`, pinned by tag. The official curl image (curl/curl-container) is Alpine-based,
 * small, and runs as the non-root `curl_user` (uid 100, gid 101), so it fits the restricted profile as is.
 */
export const CURL_IMAGE = 'docker.io/curlimages/curl:8.22.0';
/** uid and gid of `curl_user` in `CURL_IMAGE` (`adduser -S` / `addgroup -S` on Alpine). */
const CURL_UID = 100;
const CURL_GID = 101;

/** A key of a Secret, read into the Job's environment and never written to output. */
export interface SecretKeyReference {
  /** Name of the Secret, in the Job's namespace. */
  readonly name: string;
  /** Key in the Secret. */
  readonly key: string;
}

/** Properties for `ForgejoMirrorJob`. */
export interface ForgejoMirrorJobProps {
  /** Forgejo's in-cluster endpoint; the Job calls its API. */
  readonly forgejo: ForgejoEndpoint;
  /** Namespace of the Job (Forgejo's namespace, where both token Secrets live). */
  readonly namespace: string;
  /** The GitHub seed to mirror; Forgejo clones its HTTPS form. */
  readonly seed: GithubSeed;
  /** Owner (user or organisation) of the mirror in Forgejo. */
  readonly repoOwner: string;
  /**
   * Name of the mirror in Forgejo.
   * @default - the GitHub repository name
   */
  readonly repoName?: string;
  /** GitHub fine-grained token (Contents: Read) Forgejo pulls with; delivered by SOPS. */
  readonly githubToken: SecretKeyReference;
  /** Forgejo token allowed to create repositories under `repoOwner`. */
  readonly forgejoAdminToken: SecretKeyReference;
  /**
   * How often Forgejo pulls from GitHub (Go duration, `mirror_interval`).
   * @default '10m0s'
   */
  readonly mirrorInterval?: string;
  /**
   * Name of the Job.
   * @default 'forgejo-mirror'
   */
  readonly name?: string;
  /**
   * How often a failed run is retried (Forgejo may still be starting).
   * @default 4
   */
  readonly backoffLimit?: number;
  /**
   * How long the Job may run in total before it fails.
   * @default Duration.minutes(15)
   */
  readonly activeDeadline?: Duration;
  /**
   * Image providing `sh` and `curl`, running as uid 100 / gid 101.
   * @default CURL_IMAGE
   */
  readonly image?: string;
  /**
   * Cron schedule of the CronJob that runs the same script again, so a GitHub token rotated in its Secret
   * reaches the existing mirror (Argo CD re-runs the Job only when its manifest changes, not its Secret's).
   * @default '*\/30 * * * *'
   */
  readonly rotationSchedule?: string;
}

/**
 * A Job that creates Forgejo's pull-mirror of the GitHub seed through `POST /api/v1/repos/migrate`,
 * idempotently: 201 (created) and 409 (already exists, and it is a mirror made with the current GitHub token)
 * succeed; an existing mirror made with another token is re-created with the current one (see `MIRROR_SCRIPT`);
 * anything else fails with Forgejo's answer in the log. A CronJob runs the same script on `rotationSchedule`,
 * so a token rotated in its Secret reaches the mirror without a change to this manifest. Both tokens come
 * from Secret references (`env.valueFrom.secretKeyRef`), never from the output; the request body is piped
 * to curl so no token appears in a process's arguments.
 *
 * Jobs are immutable, so the object carries `Replace=true,Force=true`: a changed Job is recreated (and
 * reruns, which is harmless) instead of failing the sync.
 *
 * @see https://forgejo.org/docs/latest/user/repo-mirror/
 */
export class ForgejoMirrorJob extends Construct implements INetworkWorkload {
  /** The Forgejo whose API it calls. */
  public readonly forgejo: ForgejoEndpoint;
  public readonly name: string;
  public readonly namespace: string;
  public readonly repoOwner: string;
  public readonly repoName: string;
  /** The HTTPS URL Forgejo clones (`clone_addr`). */
  public readonly cloneAddr: string;
  public readonly mirrorInterval: string;
  public readonly backoffLimit: number;
  public readonly activeDeadline: Duration;
  public readonly image: string;
  public readonly githubToken: SecretKeyReference;
  public readonly forgejoAdminToken: SecretKeyReference;
  public readonly rotationSchedule: string;
  public readonly job: k8s.KubeJob;
  /** The CronJob `<name>-rotation` that re-runs the script on `rotationSchedule`. */
  public readonly cronJob: k8s.KubeCronJob;

  constructor(scope: Construct, id: string, props: ForgejoMirrorJobProps) {
    super(scope, id);
    this.name = props.name ?? 'forgejo-mirror';
    this.forgejo = props.forgejo;
    this.namespace = props.namespace;
    this.repoOwner = props.repoOwner;
    this.repoName = props.repoName ?? props.seed.repo;
    this.cloneAddr = githubHttpsUrl(props.seed);
    this.mirrorInterval = props.mirrorInterval ?? '10m0s';
    this.backoffLimit = props.backoffLimit ?? 4;
    this.activeDeadline = props.activeDeadline ?? Duration.minutes(15);
    this.image = props.image ?? CURL_IMAGE;
    this.rotationSchedule = props.rotationSchedule ?? '*/30 * * * *';
    this.githubToken = props.githubToken;
    this.forgejoAdminToken = props.forgejoAdminToken;
    const forgejoUrl = props.forgejo.inClusterHttpUrl.replace(/\/+$/, '');

    if (!isGoDuration(this.mirrorInterval)) {
      throw new Error(`forgejo mirror: mirrorInterval '${this.mirrorInterval}' is not a Go duration such as '10m0s' or '8h'. ` +
        'Set argocd.forgejoMirror.mirrorInterval.');
    }
    if (this.rotationSchedule.trim().split(/\s+/).length !== 5 || !/^[-0-9*/,\s]+$/.test(this.rotationSchedule)) {
      throw new Error(`${this.node.path}: 'rotationSchedule' must be a five-field cron schedule such as '*/30 * * * *', got '${this.rotationSchedule}'.`);
    }

    const labels = { ...COMMON_LABELS, ...selectorLabels('forgejo-mirror', this.name) };
    const env: k8s.EnvVar[] = [
      { name: 'HOME', value: '/tmp' },
      { name: 'FORGEJO_URL', value: forgejoUrl },
      { name: 'CLONE_ADDR', value: this.cloneAddr },
      { name: 'REPO_OWNER', value: this.repoOwner },
      { name: 'REPO_NAME', value: this.repoName },
      { name: 'MIRROR_INTERVAL', value: this.mirrorInterval },
      { name: 'GITHUB_TOKEN', valueFrom: { secretKeyRef: { name: this.githubToken.name, key: this.githubToken.key } } },
      { name: 'FORGEJO_TOKEN', valueFrom: { secretKeyRef: { name: this.forgejoAdminToken.name, key: this.forgejoAdminToken.key } } },
    ];

    const spec: k8s.JobSpec = {
      backoffLimit: this.backoffLimit,
      activeDeadlineSeconds: this.activeDeadline.toSeconds(),
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          securityContext: restrictedPodSecurityContext(CURL_UID, CURL_GID),
          containers: [{
            name: 'create-mirror',
            image: this.image,
            command: ['/bin/sh', '-c', MIRROR_SCRIPT],
            env,
            terminationMessagePolicy: 'FallbackToLogsOnError',
            volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            resources: {
              requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('16Mi') },
              limits: { memory: k8s.Quantity.fromString('64Mi') },
            },
            securityContext: restrictedContainerSecurityContext(CURL_UID, CURL_GID),
          }],
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('8Mi') } }],
        },
      },
    };
    this.job = new k8s.KubeJob(this, 'Resource', {
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels,
        annotations: { 'argocd.argoproj.io/sync-options': 'Replace=true,Force=true' },
      },
      spec,
    });
    this.cronJob = new k8s.KubeCronJob(this, 'Rotation', {
      metadata: { name: `${this.name}-rotation`, namespace: this.namespace, labels },
      spec: {
        schedule: this.rotationSchedule,
        // A rotation must never run twice at once: both would migrate '<repo>-rotating'.
        concurrencyPolicy: 'Forbid',
        successfulJobsHistoryLimit: 1,
        failedJobsHistoryLimit: 3,
        jobTemplate: { metadata: { labels }, spec },
      },
    });
  }

  /** The Job's and the rotation CronJob's pods (the same labels), for network policies. */
  public get peer(): PodPeer {
    return podPeer(this.namespace, this.name, selectorLabels('forgejo-mirror', this.name));
  }

  /**
   * The Job calls Forgejo's API (`forgejo`); the mirror it creates makes Forgejo pull `cloneAddr` (the seed's HTTPS
   * form) every `mirrorInterval`, so Forgejo's pods open connections to GitHub.
   */
  public get networkFlows(): NetworkFlow[] {
    return [
      { from: this.peer, to: this.forgejo.peer, ports: [{ port: this.forgejo.httpPort, name: 'http' }], reason: 'ForgejoMirrorJob.forgejo: creates the pull-mirror through Forgejo\'s API' },
      {
        from: this.forgejo.peer, to: outsideCluster(`${urlHost(this.cloneAddr)} (the GitHub seed)`), ports: [urlPort(this.cloneAddr)],
        reason: `ForgejoMirrorJob.seed: Forgejo pulls ${this.cloneAddr} every ${this.mirrorInterval}`,
      },
    ];
  }
}

/**
 * The Job's script. Tokens stay in the environment and in files under the Job's private /tmp: the request
 * body is written by the `printf` builtin into curl's stdin and the Authorization header goes through a
 * file, so neither shows in a process's arguments. Lines stay short for the YAML line-length lint.
 *
 * Rotation: the mirror's description records the first 16 hex digits of the SHA-256 of the GitHub token it
 * was created with (a fingerprint, not the token). When the mirror exists and the fingerprint differs, the
 * stored credentials are stale. Forgejo's `PATCH /api/v1/repos/{owner}/{repo}` has no field for a pull-mirror's
 * credentials (its `EditRepoOption` ignores unknown fields, so sending `auth_token` would "succeed" and change
 * nothing; Gitea added one only in go-gitea/gitea#37468 for go-gitea/gitea#30922 and #31254, and the
 * gitea-mirror maintainers confirm Forgejo lacks it in RayLabsHQ/gitea-mirror#263), so the mirror is re-created safely: a new mirror is
 * migrated under `<repo>-rotating` with the new token first; only when that succeeded is the old one deleted
 * (`DELETE /api/v1/repos/{owner}/{repo}`) and the new one renamed into place (`PATCH` with `name`). A failed
 * migration leaves the old mirror as it was. A pull-mirror holds nothing that is not on GitHub.
 */
export const MIRROR_SCRIPT = `set -eu
umask 077
printf 'Authorization: token %s\\n' "$FORGEJO_TOKEN" \\
  > /tmp/auth-header
fingerprint=$(printf '%s' "$GITHUB_TOKEN" |
  sha256sum | cut -c1-16)
marker="credentials sha256:$fingerprint"
body() {
  printf '{"clone_addr":"%s",' "$CLONE_ADDR"
  printf '"repo_owner":"%s",' "$REPO_OWNER"
  printf '"repo_name":"%s",' "$1"
  printf '"mirror":true,"private":true,"service":"github",'
  printf '"description":"Pull-mirror of %s; %s",' \\
    "$CLONE_ADDR" "$marker"
  printf '"mirror_interval":"%s",' "$MIRROR_INTERVAL"
  printf '"auth_token":"%s"}' "$GITHUB_TOKEN"
}
api() {
  curl --silent --show-error --connect-timeout 10 \\
    --max-time 300 --retry 5 --retry-connrefused \\
    --retry-delay 5 --header @/tmp/auth-header \\
    --header 'Content-Type: application/json' \\
    --output /tmp/response.json \\
    --write-out '%{http_code}' "$@"
}
fail() {
  echo "Forgejo answered HTTP $status to $1:" >&2
  cat /tmp/response.json >&2 || true
  exit 1
}
is_mirror() {
  grep -Eq '"mirror": *true' /tmp/response.json
}
migrate() {
  status=$(body "$1" | api --request POST --data-binary @- \\
    "$FORGEJO_URL/api/v1/repos/migrate")
}
repos="$FORGEJO_URL/api/v1/repos/$REPO_OWNER"
repo="$REPO_OWNER/$REPO_NAME"
migrate "$REPO_NAME"
case "$status" in
  201)
    echo "created pull-mirror $repo of $CLONE_ADDR"
    exit 0
    ;;
  409) ;;
  *) fail "POST /api/v1/repos/migrate" ;;
esac
status=$(api --request GET "$repos/$REPO_NAME")
if [ "$status" != 200 ] || ! is_mirror; then
  echo "$repo exists in Forgejo but is not a pull-mirror" \\
    "(HTTP $status); delete it, then rerun" >&2
  exit 1
fi
if grep -Fq "$marker" /tmp/response.json; then
  echo "pull-mirror $repo exists with the current token"
  exit 0
fi
echo "the GitHub token changed: re-creating pull-mirror $repo"
next="$REPO_NAME-rotating"
status=$(api --request GET "$repos/$next")
if [ "$status" = 200 ]; then
  if ! is_mirror; then
    echo "$REPO_OWNER/$next is not a pull-mirror;" \\
      "delete or rename it, then rerun" >&2
    exit 1
  fi
  # Left over from an interrupted rotation.
  status=$(api --request DELETE "$repos/$next")
  [ "$status" = 204 ] || fail "DELETE $REPO_OWNER/$next"
fi
migrate "$next"
[ "$status" = 201 ] ||
  fail "POST /api/v1/repos/migrate ($next)"
status=$(api --request DELETE "$repos/$REPO_NAME")
[ "$status" = 204 ] || fail "DELETE $repo"
status=$(printf '{"name":"%s"}' "$REPO_NAME" |
  api --request PATCH --data-binary @- "$repos/$next")
[ "$status" = 200 ] || fail "PATCH $REPO_OWNER/$next (rename)"
echo "re-created pull-mirror $repo with the new GitHub token"
`;

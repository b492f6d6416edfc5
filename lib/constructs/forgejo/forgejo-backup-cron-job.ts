import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { cronJobScheduleProblem } from '../../shared/backup';
import { FORGEJO_DUMP_GLOB, FORGEJO_DUMP_TYPE } from '../../shared/forgejo-backup';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { IMAGES } from '../../shared/pins';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../../shared/security';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';
import { DUMP_STORE_CA_PATH, DumpStore, dumpStoreEnv, dumpStorePreconditions, dumpStoreProblem, dumpStoreRemote } from './dump-store';
import { ForgejoServer } from './forgejo-server';
import { INetworkWorkload, NetworkFlow, podPeer, PodPeer, urlPeer, urlPort } from '../../shared/network';

/** Properties for `ForgejoBackupCronJob`. */
export interface ForgejoBackupCronJobProps {
  /** The Forgejo whose data volume is dumped; the backup pod runs on its node, with its image and its `app.ini`. */
  readonly forgejo: ForgejoServer;

  /** Where the dumps are written. */
  readonly store: DumpStore;

  /**
   * When a dump is taken: a Kubernetes CronJob schedule (five fields, minutes first), in the cluster's time.
   *
   * @default '0 2 * * *'
   */
  readonly schedule?: string;

  /**
   * Dumps in the folder older than this many days are deleted after each successful upload (by the object's
   * modification time, which rclone sets to the dump's).
   *
   * @default 30
   */
  readonly retentionDays?: number;

  /**
   * How long one backup may run before Kubernetes stops it.
   *
   * @default Duration.hours(3)
   */
  readonly activeDeadline?: Duration;

  /**
   * Name of the CronJob.
   *
   * @default 'forgejo-backup'
   */
  readonly name?: string;
}

/** Where the dump is written inside the pod: an `emptyDir` the two containers share. */
const DUMP_DIR = '/dump';

/**
 * A CronJob that dumps Forgejo's data with `forgejo dump` and uploads the dump to an S3-compatible object store, then
 * deletes dumps older than `retentionDays`.
 *
 * Where it runs: in a pod of its own, scheduled onto Forgejo's node by a required pod affinity on
 * `kubernetes.io/hostname`, mounting Forgejo's ReadWriteOnce volume **read-only** (a ReadWriteOnce volume can be
 * mounted by several pods on one node). Not inside the Forgejo pod: a sidecar would run all day for a minute's work,
 * and `kubectl exec` from a Job needs `pods/exec`, which is a shell in Forgejo with every Secret it reads. Neither
 * way pauses Forgejo, so a dump is as consistent as `forgejo dump` of a running instance is: each file is read
 * whole, but a push during the dump may leave a repository's newest ref without its objects; the next dump has it.
 * The pod meets the *restricted* Pod Security level (Forgejo's namespace enforces it in the reference homelab).
 * While Forgejo has no running pod (a Recreate rollout) the backup pod waits to be scheduled, within
 * `activeDeadline`; and while a dump runs, a Forgejo pod moved to another node cannot attach the volume until the
 * dump ends (at most `activeDeadline`).
 *
 * 1. `dump` (init container, Forgejo's image, uid 1000): `forgejo --config <app.ini on the volume> dump --type tar.gz
 *    --skip-log --skip-repo-archives --tempdir /tmp/gitea --file /dump/forgejo-dump-<UTC time>.tar.gz`. The archive
 *    holds `repos/` (the repository root), `data/lfs/`, `data/attachments/`, `data/packages/`, the rest of
 *    `APP_DATA_PATH` under `data/` (avatars, SSH host keys, `custom/`, indexes), `app.ini`, and `forgejo-db.sql`:
 *    Forgejo's dump has no flag to skip the database (forgejo `cmd/dump.go`: `dumpDatabase` always runs), so it reads
 *    the database too, through `app.ini`; the restore ignores that file, because CNPG restores the database.
 * 2. `upload` (rclone): `rclone copyto` the dump, then `rclone delete --min-age <retentionDays>d` on
 *    `forgejo-dump-*.tar.gz` in the folder, only after a successful upload, so the newest dump is never pruned.
 *
 * The credentials reach rclone as environment variables from the Secret; they are never on a command line or in a
 * log. `app.ini` in the dump holds Forgejo's own secrets (database password, `SECRET_KEY`, tokens): treat the
 * bucket as secret.
 *
 * @see https://forgejo.org/docs/latest/admin/upgrade/#backup
 */
export class ForgejoBackupCronJob extends Construct implements IBootstrapComponent, INetworkWorkload {
  /** The Forgejo it dumps. */
  public readonly forgejo: ForgejoServer;
  public readonly name: string;
  public readonly namespace: string;
  public readonly store: DumpStore;
  public readonly schedule: string;
  public readonly retentionDays: number;
  public readonly activeDeadline: Duration;
  /** The rclone remote path of the dump folder, `STORE:<bucket>/<folder>`. */
  public readonly remote: string;
  public readonly cronJob: k8s.KubeCronJob;
  /** The runbook checks the credential Secret exists before applying the step. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: ForgejoBackupCronJobProps) {
    super(scope, id);
    const forgejo = props.forgejo;
    this.forgejo = forgejo;
    this.name = props.name ?? 'forgejo-backup';
    this.namespace = forgejo.namespace;
    this.store = props.store;
    this.schedule = props.schedule ?? '0 2 * * *';
    this.retentionDays = props.retentionDays ?? 30;
    this.activeDeadline = props.activeDeadline ?? Duration.hours(3);
    this.remote = dumpStoreRemote(this.store);

    const scheduleProblem = cronJobScheduleProblem(this.schedule);
    if (scheduleProblem !== undefined) throw new Error(`${this.node.path}: 'schedule' ${scheduleProblem}`);
    if (!Number.isInteger(this.retentionDays) || this.retentionDays < 1) {
      throw new Error(`${this.node.path}: 'retentionDays' must be a whole number of at least 1, got ${this.retentionDays}.`);
    }
    const storeProblem = dumpStoreProblem(this.store);
    if (storeProblem !== undefined) throw new Error(`${this.node.path}: 'store': ${storeProblem}`);

    const labels = { ...COMMON_LABELS, ...selectorLabels('forgejo-backup', this.name) };
    const tmp = '/tmp';
    const mounts = (dataReadOnly: boolean): k8s.VolumeMount[] => [
      ...(dataReadOnly ? [{ name: 'data', mountPath: forgejo.dataPath, readOnly: true }] : []),
      { name: 'dump', mountPath: DUMP_DIR },
      { name: 'tmp', mountPath: tmp },
    ];
    const resources = (cpu: string, memory: string) => ({
      requests: { cpu: k8s.Quantity.fromString(cpu), memory: k8s.Quantity.fromString(memory) },
      limits: { memory: k8s.Quantity.fromString(memory) },
    });
    const podSpec: k8s.PodSpec = {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: restrictedPodSecurityContext(forgejo.uid),
      affinity: {
        // The volume is ReadWriteOnce: only a pod on Forgejo's node can mount it.
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{
            labelSelector: { matchLabels: { ...forgejo.selector } },
            topologyKey: 'kubernetes.io/hostname',
          }],
        },
      },
      initContainers: [{
        name: 'dump',
        image: forgejo.image,
        command: ['/bin/sh', '-c', DUMP_SCRIPT],
        env: [
          { name: 'APP_INI', value: `${forgejo.dataPath}/custom/conf/app.ini` },
          { name: 'DUMP_DIR', value: DUMP_DIR },
          // The image's GITEA_TEMP and TMPDIR; /tmp is the pod's own emptyDir (the root filesystem is read-only).
          { name: 'TMPDIR', value: `${tmp}/gitea` },
        ],
        terminationMessagePolicy: 'FallbackToLogsOnError',
        volumeMounts: mounts(true),
        resources: resources('100m', '512Mi'),
        securityContext: restrictedContainerSecurityContext(forgejo.uid),
      }],
      containers: [{
        name: 'upload',
        image: IMAGES.rclone,
        command: ['/bin/sh', '-c', UPLOAD_SCRIPT],
        env: [
          ...dumpStoreEnv(this.store),
          { name: 'DUMP_DIR', value: DUMP_DIR },
          { name: 'DUMP_GLOB', value: FORGEJO_DUMP_GLOB },
          { name: 'RETENTION_DAYS', value: String(this.retentionDays) },
        ],
        terminationMessagePolicy: 'FallbackToLogsOnError',
        volumeMounts: [...mounts(false), ...(this.store.endpointCa ? [{ name: 'store-ca', mountPath: DUMP_STORE_CA_PATH, subPath: 'ca.crt', readOnly: true }] : [])],
        resources: resources('50m', '256Mi'),
        securityContext: restrictedContainerSecurityContext(forgejo.uid),
      }],
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: forgejo.claimName, readOnly: true } },
        // A compressed dump is smaller than the data it holds, so the volume's size bounds it.
        { name: 'dump', emptyDir: { sizeLimit: k8s.Quantity.fromString(forgejo.storageSize) } },
        { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('1Gi') } },
        ...(this.store.endpointCa ? [{
          name: 'store-ca',
          secret: { secretName: this.store.endpointCa.name, items: [{ key: this.store.endpointCa.key, path: 'ca.crt' }] },
        }] : []),
      ],
    };

    this.cronJob = new k8s.KubeCronJob(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace, labels },
      spec: {
        schedule: this.schedule,
        // Two dumps at once would double the load on Forgejo's disk and race on pruning.
        concurrencyPolicy: 'Forbid',
        // A dump missed by more than an hour (a node down at 02:00) waits for the next one instead of running late.
        startingDeadlineSeconds: 3600,
        successfulJobsHistoryLimit: 1,
        failedJobsHistoryLimit: 3,
        jobTemplate: {
          metadata: { labels },
          spec: {
            backoffLimit: 2,
            activeDeadlineSeconds: this.activeDeadline.toSeconds(),
            template: { metadata: { labels }, spec: podSpec },
          },
        },
      },
    });
    // The claim it mounts is Forgejo's.
    this.node.addDependency(forgejo);

    this.bootstrapRequirements = { preconditions: dumpStorePreconditions(this.store, this.namespace, 'Forgejo\'s backups') };
  }

  /** The backup's pods, for network policies. */
  public get peer(): PodPeer {
    return podPeer(this.namespace, this.name, selectorLabels('forgejo-backup', this.name));
  }

  /**
   * `forgejo dump` reads Forgejo's database (the `app.ini` on the volume names it), then rclone uploads to `store`.
   */
  public get networkFlows(): NetworkFlow[] {
    const cluster = this.forgejo.database.cluster;
    return [
      { from: this.peer, to: cluster.peer, ports: [cluster.postgresPort], reason: `ForgejoBackupCronJob.forgejo: forgejo dump reads database ${this.forgejo.database.pgName}` },
      { from: this.peer, to: urlPeer(this.store.endpointUrl, 'object store of Forgejo\'s dumps'), ports: [urlPort(this.store.endpointUrl)], reason: 'ForgejoBackupCronJob.store: rclone uploads the dump' },
    ];
  }
}

/**
 * Dumps Forgejo's data into `$DUMP_DIR`. Flags from forgejo `cmd/dump.go` (urfave/cli v3, the v16 line;
 * creator-signal/fork-forgejo-forgejo @2fb6eebe): `--file` (a name whose known suffix is replaced by `.<type>`),
 * `--type`, `--tempdir` (where `forgejo-db.sql` is written first), `--skip-log` (logs are not data),
 * `--skip-repo-archives` (generated download archives, a cache), `--quiet`. `--config` names the `app.ini` that
 * Forgejo's own start wrote on the volume (the image's `/usr/local/bin/forgejo` wrapper adds `-c` only when no
 * `--config` is given). The volume is read-only here, so the dump never writes `app.ini`: Forgejo writes a missing
 * `INTERNAL_TOKEN` into it on its first start (`modules/setting/security.go`, `generateSaveInternalToken`), and a
 * dump before Forgejo ever started fails with "Error saving internal token" instead of changing the volume.
 */
export const DUMP_SCRIPT = `set -eu
umask 077
mkdir -p "$TMPDIR"
name="forgejo-dump-$(date -u +%Y%m%dT%H%M%SZ).${FORGEJO_DUMP_TYPE}"
echo "dumping Forgejo's data into $name"
forgejo --config "$APP_INI" dump --quiet --type ${FORGEJO_DUMP_TYPE} \\
  --skip-log --skip-repo-archives \\
  --tempdir "$TMPDIR" --file "$DUMP_DIR/$name"
ls -l "$DUMP_DIR/$name"
`;

/** Uploads the one dump in `$DUMP_DIR`, then prunes dumps older than `$RETENTION_DAYS` days; never deletes on a failed upload. */
export const UPLOAD_SCRIPT = `set -eu
cd "$DUMP_DIR"
set -- ${FORGEJO_DUMP_GLOB}
if [ "$#" -ne 1 ] || [ ! -f "$1" ]; then
  echo "expected one dump in $DUMP_DIR, found: $*" >&2
  exit 1
fi
rclone copyto "$1" "$REMOTE/$1"
echo "uploaded $1 to $REMOTE"
rclone delete "$REMOTE" --max-depth 1 --include "$DUMP_GLOB" \\
  --min-age "\${RETENTION_DAYS}d" --verbose
echo "pruned dumps older than $RETENTION_DAYS days"
`;

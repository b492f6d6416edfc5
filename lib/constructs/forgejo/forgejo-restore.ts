import { Size } from 'cdk8s';
import { Cpu, EnvValue, Secret, Volume } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { FORGEJO_DUMP_GLOB, forgejoDumpNameProblem } from '../../shared/forgejo-backup';
import { restrictedPlusSecurityContext } from '../../shared/plus-workloads';
import { IMAGES } from '../../shared/pins';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';
import { DUMP_STORE_CA_PATH, DumpStore, dumpStoreEnv, dumpStorePreconditions, dumpStoreProblem, dumpStoreRemote } from './dump-store';
import { ForgejoServer } from './forgejo-server';
import { INetworkWorkload, NetworkFlow, urlPeer, urlPort } from '../../shared/network';

/** Properties for `ForgejoRestore`. */
export interface ForgejoRestoreProps {
  /** The Forgejo whose data volume is filled; the restore runs as the first init container of its pod. */
  readonly forgejo: ForgejoServer;

  /** The folder that holds the dumps. */
  readonly store: DumpStore;

  /**
   * `latest` (the newest `forgejo-dump-*.tar.gz` in the folder: the names sort by time) or a dump's file name.
   *
   * @default 'latest'
   */
  readonly dump?: string;
}

/** Name of the init container. */
const CONTAINER_NAME = 'restore-data';

/**
 * Restores Forgejo's data volume from a `forgejo dump` (see `ForgejoBackupCronJob`) before Forgejo starts on it: an
 * init container `restore-data` (rclone image, uid 1000, restricted) added in front of the Forgejo pod's containers.
 * So the runbook's existing wait for Forgejo's rollout also waits for the restore, and the data is back before the
 * runbook goes on to Argo CD.
 *
 * It restores only an **empty** volume: when any of the repository root, LFS, attachments or packages holds an entry,
 * it logs that the restore was skipped and why, and changes nothing. Every later start of the pod therefore skips
 * (the Secret references are optional, so a deleted credential Secret does not keep Forgejo from starting then).
 * A restore it started and did not finish (a marker file on the volume) is removed and started again, so a
 * restarted pod never mixes two half-restores. Only the data parts of the dump are used: `forgejo-db.sql` (CNPG
 * restores the database) and the top-level `app.ini` copy are ignored; `data/custom/conf/app.ini` is restored with
 * the rest of `APP_DATA_PATH`, and the image's start script keeps it and writes the environment's keys into it.
 *
 * Where each part goes is the rootless image's layout (forgejo `docker/rootless/etc/templates/app.ini`: repository
 * `ROOT = $GITEA_WORK_DIR/git/repositories`, `[lfs] PATH = $GITEA_WORK_DIR/git/lfs`, `[attachment] PATH =
 * $GITEA_WORK_DIR/data/attachments`, `APP_DATA_PATH = $GITEA_WORK_DIR`; packages default to `APP_DATA_PATH/packages`,
 * `modules/setting/storage.go` `getStorageForLocal`), not the generic restore steps of Forgejo's docs, which move
 * `data/*` whole and would put LFS and attachments where the rootless image does not read them.
 */
export class ForgejoRestore extends Construct implements IBootstrapComponent, INetworkWorkload {
  /** The Forgejo whose volume it fills. */
  public readonly forgejo: ForgejoServer;
  public readonly store: DumpStore;
  public readonly dump: string;
  /** The rclone remote path of the dump folder. */
  public readonly remote: string;
  /** Name of the init container added to Forgejo's pod. */
  public readonly containerName = CONTAINER_NAME;
  /** The runbook checks the credential Secret exists before applying the step. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: ForgejoRestoreProps) {
    super(scope, id);
    const forgejo = props.forgejo;
    this.forgejo = forgejo;
    this.store = props.store;
    this.dump = props.dump ?? 'latest';
    this.remote = dumpStoreRemote(this.store);
    const dumpProblem = forgejoDumpNameProblem(this.dump);
    if (dumpProblem !== undefined) throw new Error(`${this.node.path}: 'dump' ${dumpProblem}`);
    const storeProblem = dumpStoreProblem(this.store);
    if (storeProblem !== undefined) throw new Error(`${this.node.path}: 'store': ${storeProblem}`);

    const env: Record<string, EnvValue> = {};
    // Optional: every later start of the pod skips the restore and needs no credentials.
    for (const v of dumpStoreEnv(this.store, { optional: true })) {
      const ref = v.valueFrom?.secretKeyRef;
      env[v.name] = ref
        ? EnvValue.fromSecretValue({ secret: Secret.fromSecretName(this, `Env${v.name}`, ref.name!), key: ref.key }, { optional: true })
        : EnvValue.fromValue(v.value!);
    }
    env.DATA_DIR = EnvValue.fromValue(forgejo.dataPath);
    env.DUMP = EnvValue.fromValue(this.dump);
    env.DUMP_GLOB = EnvValue.fromValue(FORGEJO_DUMP_GLOB);

    const ca = this.store.endpointCa;
    forgejo.deployment.addInitContainer({
      name: CONTAINER_NAME,
      image: IMAGES.rclone,
      command: ['/bin/sh', '-c', RESTORE_SCRIPT],
      envVariables: env,
      volumeMounts: [
        { path: forgejo.dataPath, volume: forgejo.dataVolume },
        { path: '/tmp', volume: forgejo.tmpVolume },
        ...(ca ? [{
          path: DUMP_STORE_CA_PATH,
          subPath: 'ca.crt',
          readOnly: true,
          volume: Volume.fromSecret(this, 'StoreCa', Secret.fromSecretName(this, 'StoreCaSecret', ca.name), {
            name: 'restore-store-ca', items: { [ca.key]: { path: 'ca.crt' } },
          }),
        }] : []),
      ],
      resources: {
        cpu: { request: Cpu.millis(50) },
        memory: { request: Size.mebibytes(128), limit: Size.mebibytes(512) },
      },
      securityContext: restrictedPlusSecurityContext(forgejo.uid),
    });

    this.bootstrapRequirements = { preconditions: dumpStorePreconditions(this.store, forgejo.namespace, 'Forgejo\'s restore') };
  }

  /** The init container runs in Forgejo's pod, so Forgejo's pods download the dump from `store`. */
  public get networkFlows(): NetworkFlow[] {
    return [{
      from: this.forgejo.peer, to: urlPeer(this.store.endpointUrl, 'object store of Forgejo\'s dumps'), ports: [urlPort(this.store.endpointUrl)],
      reason: 'ForgejoRestore.store: the restore-data init container downloads the dump',
    }];
  }
}

/**
 * Restores `$DUMP` from `$REMOTE` into `$DATA_DIR`, unless the volume already holds data. POSIX `sh` with
 * `pipefail` (BusyBox ash of the rclone image, and bash, run it); the dump streams from rclone into `tar`, so it
 * needs no space besides its unpacked copy, which is unpacked on the volume itself and moved into place by rename.
 */
export const RESTORE_SCRIPT = `set -eu
# BusyBox ash and bash have pipefail: a broken download fails the restore.
# shellcheck disable=SC3040
set -o pipefail
data=$DATA_DIR
marker="$data/.forgejo-restore-incomplete"
staging="$data/.forgejo-restore"
repos="$data/git/repositories"
lfs="$data/git/lfs"
attachments="$data/data/attachments"
packages="$data/packages"
has_entries() { [ -d "$1" ] && [ -n "$(ls -A "$1")" ]; }
if [ -e "$marker" ]; then
  echo "an earlier restore did not finish; removing what it unpacked"
  rm -rf "$staging" "$repos" "$lfs" "$attachments" "$packages"
else
  for part in "$repos" "$lfs" "$attachments" "$packages"; do
    if has_entries "$part"; then
      echo "restore skipped: $part is not empty;" \\
        "a restore never overwrites data on the volume"
      exit 0
    fi
  done
fi
name=$DUMP
if [ "$name" = latest ]; then
  name=$(rclone lsf --files-only --max-depth 1 \\
    --include "$DUMP_GLOB" "$REMOTE" | sort | tail -n 1)
  if [ -z "$name" ]; then
    echo "no dump named $DUMP_GLOB in $REMOTE to restore" >&2
    exit 1
  fi
fi
touch "$marker"
rm -rf "$staging"
mkdir -p "$staging"
echo "restoring $name from $REMOTE"
rclone cat "$REMOTE/$name" | tar -xzf - -C "$staging"
if [ ! -d "$staging/repos" ]; then
  echo "$name has no repos/ folder: not a forgejo dump" >&2
  exit 1
fi
# Into an empty place (checked above, or our own unfinished restore).
move() {
  [ -e "$1" ] || return 0
  mkdir -p "$(dirname "$2")"
  rm -rf "$2"
  mv "$1" "$2"
}
# The data parts, kept apart from APP_DATA_PATH's own files.
for part in lfs attachments packages; do
  mv "$staging/data/$part" "$staging/$part" 2>/dev/null || true
done
# The rest of data/ is APP_DATA_PATH: custom/, ssh/, data/, git/ ...
# but not the file system's own lost+found.
for entry in "$staging/data"/* "$staging/data"/.[!.]*; do
  [ -e "$entry" ] || continue
  [ "\${entry##*/}" = lost+found ] && continue
  move "$entry" "$data/\${entry##*/}"
done
move "$staging/lfs" "$lfs"
move "$staging/attachments" "$attachments"
move "$staging/packages" "$packages"
move "$staging/repos" "$repos"
rm -rf "$staging"
# Last: without the marker, the volume counts as holding data.
rm -f "$marker"
echo "restored $name; its forgejo-db.sql is not used:" \\
  "the database comes from CNPG"
`;

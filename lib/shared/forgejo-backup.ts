/**
 * The formats of Forgejo's repository backups, once: the dump file names (the CronJob schedule is checked by
 * `cronJobScheduleProblem` in ./backup). Pure functions, used by the config schema (lib/config) and by the constructs
 * (lib/constructs/forgejo), which name their own paths.
 */

/**
 * The archive type of every dump: `forgejo dump --type tar.gz`. gzip because the restore unpacks it with the BusyBox
 * `tar` of the S3 client's Alpine image, which reads gzip but not zstd; Forgejo's own types are zip, tar, tar.sz,
 * tar.gz, tar.xz, tar.bz2, tar.br, tar.lz4 and tar.zst (forgejo `cmd/dump.go`, `outputTypeEnum`).
 */
export const FORGEJO_DUMP_TYPE = 'tar.gz';

/**
 * Dump file names: `forgejo-dump-<UTC time>.tar.gz`, the time as `YYYYMMDDTHHMMSSZ` so that names sort by time and
 * the last one is the latest.
 */
export const FORGEJO_DUMP_NAME = /^forgejo-dump-\d{8}T\d{6}Z\.tar\.gz$/;

/** The glob of every dump in a folder, for listing and pruning. */
export const FORGEJO_DUMP_GLOB = `forgejo-dump-*.${FORGEJO_DUMP_TYPE}`;

/** Why `v` names no dump this project writes (message without path), or undefined. */
export function forgejoDumpNameProblem(v: string): string | undefined {
  return v === 'latest' || FORGEJO_DUMP_NAME.test(v) ? undefined
    : `'${v}' is not a Forgejo dump of this project: write 'latest' or a file name such as 'forgejo-dump-20260115T020000Z.tar.gz' ` +
      '(list them with `rclone lsf` or your S3 console).';
}

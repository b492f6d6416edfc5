/**
 * The formats of Forgejo's repository backups, once: the CronJob schedule and the dump file names. Pure functions,
 * used by the config schema (lib/config) and by the constructs (lib/constructs/forgejo), which name their own paths.
 */
import { CRON_FIELDS, cronItemValid } from './backup';

/**
 * The descriptors a Kubernetes CronJob accepts besides five fields: kube-apiserver parses `spec.schedule` with
 * robfig/cron v3 `ParseStandard` (kubernetes v1.30 `pkg/apis/batch/validation/validation.go`, `validateScheduleFormat`).
 */
const CRON_JOB_DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/**
 * Why `v` is not a Kubernetes CronJob schedule (message without path), or undefined: five fields, minutes first, or a
 * descriptor such as `@daily`. A six-field CNPG schedule (seconds first) is the usual mistake, so its fix is spelled
 * out. A time zone belongs in `spec.timeZone`, never in the schedule (kube-apiserver refuses `TZ=` and `CRON_TZ=`).
 */
export function cronJobScheduleProblem(v: string): string | undefined {
  const s = v.trim();
  if (CRON_JOB_DESCRIPTORS.includes(s) || /^@every \d+(\.\d+)?(ns|us|µs|ms|s|m|h)(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))*$/.test(s)) return undefined;
  if (/^(CRON_)?TZ=/.test(s)) {
    return `'${v}' names a time zone: a Kubernetes CronJob schedule cannot; write the five fields alone, e.g. '0 2 * * *' (the cluster's time, UTC on Talos).`;
  }
  const fields = s.split(/\s+/).filter((x) => x !== '');
  if (fields.length === 6) {
    return `'${v}' has 6 fields, like CNPG's ScheduledBackup (seconds first); a Kubernetes CronJob schedule has 5, minutes first: ` +
      `write '${fields.slice(1).join(' ')}'.`;
  }
  if (fields.length !== 5) {
    return `'${v}' is not a Kubernetes CronJob schedule: it needs 5 fields (minutes hours day-of-month month day-of-week), ` +
      'e.g. \'0 2 * * *\' for 02:00 every day.';
  }
  const cronJobFields = CRON_FIELDS.slice(1);
  const bad = fields.findIndex((field, i) => !field.split(',').every((item) => cronItemValid(item, cronJobFields[i])));
  if (bad < 0) return undefined;
  const f = cronJobFields[bad];
  return `'${v}': field ${bad + 1} (${f.name}) '${fields[bad]}' is not valid; use '*', a number from ${f.min} to ${f.max}` +
    `${f.names ? ` or a name (${f.names[0]}...)` : ''}, a range 'a-b', a list 'a,b' or a step '*/n'.`;
}

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

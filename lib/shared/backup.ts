/**
 * The rules of CNPG backups through the Barman Cloud plugin, once: the plugin's name, the formats its CRDs and
 * CNPG's accept (schedule, retention, recovery target), and where an object-store endpoint lives. Pure functions,
 * used by the config schema (lib/config) and by the constructs (lib/constructs/cnpg), which name their own paths.
 *
 * @see https://github.com/cloudnative-pg/plugin-barman-cloud/blob/v0.14.0/web/docs/usage.md
 */

/**
 * The name the Barman Cloud plugin registers with CNPG (`internal/cnpgi/metadata/constants.go` `PluginName`, v0.14.0):
 * a Cluster's `spec.plugins[].name`, an external cluster's `plugin.name`, a ScheduledBackup's `pluginConfiguration.name`.
 */
export const BARMAN_CLOUD_PLUGIN = 'barman-cloud.cloudnative-pg.io';

/** The Barman Cloud plugin release whose `ObjectStore` CRD `imports/` and `schemas/` are generated from (pinned in pins.ts). */
export { BARMAN_CLOUD_PLUGIN_VERSION } from './pins';

/** `ObjectStore.spec.retentionPolicy` as the pinned CRD's `pattern` has it: days, weeks or months. */
export const RETENTION_POLICY_PATTERN = /^[1-9][0-9]*[dwm]$/;

/** Why `v` is not a retention policy the ObjectStore CRD accepts (message without path), or undefined. */
export function retentionPolicyProblem(v: string): string | undefined {
  return RETENTION_POLICY_PATTERN.test(v) ? undefined
    : `'${v}' is not a retention policy: write a positive whole number and a unit, 'd' (days), 'w' (weeks) or 'm' (months), ` +
      'e.g. \'30d\' (the ObjectStore CRD\'s pattern ^[1-9][0-9]*[dwm]$).';
}

/** One field of a cron schedule: its name in messages, its range and its names (months, week days). */
export interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEK_DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** The six fields of robfig/cron with seconds, the format CNPG's ScheduledBackup uses (a CronJob's five are the last five). */
export const CRON_FIELDS: readonly CronField[] = [
  { name: 'seconds', min: 0, max: 59 },
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 6, names: WEEK_DAYS },
];

/** The predefined schedules robfig/cron accepts besides six fields. */
const CRON_DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** Whether one comma-separated item of a cron field is valid: `*`, `?`, `n`, `a-b`, each optionally `/step`. */
export function cronItemValid(item: string, f: CronField): boolean {
  const value = (s: string): number | undefined => {
    const named = f.names?.indexOf(s.toUpperCase()) ?? -1;
    if (named >= 0) return named + f.min;
    if (!/^\d+$/.test(s)) return undefined;
    const n = Number(s);
    return n >= f.min && n <= f.max ? n : undefined;
  };
  const [range, step, extra] = item.split('/');
  if (extra !== undefined || (step !== undefined && !/^[1-9]\d*$/.test(step))) return false;
  if (range === '*' || range === '?') return true;
  const [from, to, more] = range.split('-');
  if (more !== undefined) return false;
  const a = value(from);
  if (a === undefined) return false;
  if (to === undefined) return true;
  const b = value(to);
  return b !== undefined && a <= b;
}

/**
 * Why `v` is not a schedule CNPG's ScheduledBackup accepts (message without path), or undefined. The CRD says the
 * schedule "includes an additional seconds specifier" (robfig/cron): six fields, seconds first, or a descriptor such
 * as `@daily`. A five-field Kubernetes CronJob schedule is the usual mistake, so its fix is spelled out.
 *
 * @see https://pkg.go.dev/github.com/robfig/cron#hdr-CRON_Expression_Format
 */
export function cnpgScheduleProblem(v: string): string | undefined {
  const s = v.trim();
  if (CRON_DESCRIPTORS.includes(s) || /^@every \d+(\.\d+)?(ns|us|µs|ms|s|m|h)(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))*$/.test(s)) return undefined;
  const fields = s.split(/\s+/).filter((x) => x !== '');
  if (fields.length === 5) {
    return `'${v}' has 5 fields, like a Kubernetes CronJob; CNPG's ScheduledBackup schedule has 6, seconds first: ` +
      `write '0 ${fields.join(' ')}'.`;
  }
  if (fields.length !== 6) {
    return `'${v}' is not a CNPG backup schedule: it needs 6 fields, seconds first (seconds minutes hours day-of-month month ` +
      'day-of-week), e.g. \'0 0 3 * * *\' for 03:00 every day.';
  }
  const bad = fields.findIndex((field, i) => !field.split(',').every((item) => cronItemValid(item, CRON_FIELDS[i])));
  if (bad < 0) return undefined;
  const f = CRON_FIELDS[bad];
  return `'${v}': field ${bad + 1} (${f.name}) '${fields[bad]}' is not valid; use '*', a number from ${f.min} to ${f.max}` +
    `${f.names ? ` or a name (${f.names[0]}...)` : ''}, a range 'a-b', a list 'a,b' or a step '*/n'.`;
}

/**
 * Why `v` is not a recovery target time this project accepts (message without path), or undefined. CNPG accepts
 * RFC 3339 and PostgreSQL timestamps and reads one without a time zone as UTC; the plugin's troubleshooting guide
 * advises always writing the zone, so a time without one is refused rather than guessed.
 */
export function recoveryTargetTimeProblem(v: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(v);
  if (!m || Number.isNaN(Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ?? ''}${m[8] ?? 'Z'}`))) {
    return `'${v}' is not a point in time: write an RFC 3339 timestamp with its zone, e.g. '2026-01-15T10:30:00Z'.`;
  }
  if (m[8] === undefined) {
    return `'${v}' has no time zone, and PostgreSQL would read it as UTC: write the zone, e.g. '${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z' ` +
      'or with an offset such as \'+02:00\'.';
  }
  return undefined;
}

/** A Barman backup ID, as `barman-cloud-backup` names backups: `YYYYMMDDTHHMMSS`. */
export function barmanBackupIdProblem(v: string): string | undefined {
  return /^\d{8}T\d{6}$/.test(v) ? undefined
    : `'${v}' is not a Barman backup ID; copy it from the Backup's status.backupId, e.g. '20260115T030000'.`;
}

/** An address range inside a cluster: its name in messages, and a test of a dotted IPv4 address. */
interface InClusterRange {
  readonly name: string;
  readonly cidr: string;
}

/**
 * The address ranges that are inside the cluster unless the cluster says otherwise: the default Pod and Service
 * ranges of Talos (the reference platform) and k3s, and loopback.
 */
export const IN_CLUSTER_RANGES: readonly InClusterRange[] = [
  { name: 'the Talos default Service range', cidr: '10.96.0.0/12' },
  { name: 'the Talos default Pod range', cidr: '10.244.0.0/16' },
  { name: 'the k3s default Pod range', cidr: '10.42.0.0/16' },
  { name: 'the k3s default Service range', cidr: '10.43.0.0/16' },
  { name: 'loopback', cidr: '127.0.0.0/8' },
];

function ipv4ToNumber(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function inCidr(ip: number, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = ipv4ToNumber(base)!;
  return ip >= start && ip < start + size;
}

/**
 * Why the host of `endpointUrl` is inside the cluster (a phrase for messages, e.g. `a '.svc' Service name`), or
 * undefined when it is outside as far as the URL tells: a Service name (`*.svc`, `*.svc.cluster.local`, or a
 * single label that resolves through the Pod's search domains), `localhost`, or an address of `IN_CLUSTER_RANGES`.
 */
export function inClusterEndpoint(endpointUrl: string): string | undefined {
  let host: string;
  try {
    host = new URL(endpointUrl).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
  if (host.endsWith('.svc') || host.endsWith('.svc.cluster.local') || host.endsWith('.cluster.local')) return `'${host}' is a Service name`;
  if (host === 'localhost') return '\'localhost\' is the Pod itself';
  const ip = ipv4ToNumber(host);
  if (ip !== undefined) {
    const range = IN_CLUSTER_RANGES.find((r) => inCidr(ip, r.cidr));
    return range ? `${host} is in ${range.name} (${range.cidr})` : undefined;
  }
  if (!host.includes('.') && !host.startsWith('[')) return `'${host}' is a single-label name, resolved through the Pod's search domains to a Service`;
  return undefined;
}

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


const HOUR = 3600;
const DAY = 24 * HOUR;

/** Seconds between two runs of a descriptor schedule, at most. */
const DESCRIPTOR_SECONDS: Readonly<Record<string, number>> = {
  '@yearly': 366 * DAY, '@annually': 366 * DAY, '@monthly': 31 * DAY, '@weekly': 7 * DAY,
  '@daily': DAY, '@midnight': DAY, '@hourly': HOUR,
};

/** Seconds of a Go duration such as `6h` or `1h30m` (`@every` schedules). */
function goDurationSeconds(d: string): number {
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: HOUR };
  let total = 0;
  for (const [, n, u] of d.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(n) * unit[u];
  return total;
}

/**
 * An upper bound of the time between two runs of a valid schedule, in seconds: CNPG's six fields (`withSeconds`) or a
 * CronJob's five. Simple on purpose: the most significant restricted field sets the period (month: a year; day of
 * week: a week; day of month: 31 days; hours: a day, or `n` hours for `*\/n` that divides 24; minutes: an hour, or
 * `n` minutes; seconds: a minute, or `n` seconds), so a list such as `3,15` in the hours counts as daily. It never
 * comes out shorter than the real gap, so an alert built on it does not fire while the schedule is keeping up.
 */
export function scheduleMaxIntervalSeconds(schedule: string, withSeconds: boolean): number {
  const s = schedule.trim();
  if (s in DESCRIPTOR_SECONDS) return DESCRIPTOR_SECONDS[s];
  if (s.startsWith('@every ')) return goDurationSeconds(s.slice('@every '.length));
  const fields = s.split(/\s+/);
  const [seconds, minutes, hours, dayOfMonth, month, dayOfWeek] = withSeconds ? fields : ['0', ...fields];
  const open = (f: string) => f === '*' || f === '?' || f === '*/1';
  /** `n` for a field `*\/n` whose step divides the next field's range evenly, else undefined. */
  const step = (f: string, range: number) => {
    const m = /^\*\/(\d+)$/.exec(f);
    return m && range % Number(m[1]) === 0 ? Number(m[1]) : undefined;
  };
  if (!open(month)) return 366 * DAY;
  if (!open(dayOfWeek)) return 7 * DAY;
  if (!open(dayOfMonth)) return 31 * DAY;
  if (!open(hours)) return (step(hours, 24) ?? 24) * HOUR;
  if (!open(minutes)) return (step(minutes, 60) ?? 60) * 60;
  if (withSeconds && !open(seconds)) return step(seconds, 60) ?? 60;
  return withSeconds ? 1 : 60;
}

/** The namespace of the restore drills' throwaway clusters (created by the `backup-checks` Application). */
export const RESTORE_DRILL_NAMESPACE = 'restore-drill';

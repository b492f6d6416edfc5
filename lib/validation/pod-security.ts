import { FieldPath, Finding, formatPath, isObject, JsonObject, show } from './field-path';
import { imagePinProblem } from './image-reference';
import { ManifestDocument } from './manifest-documents';
import { byteQuantityProblem, compareQuantities, parseQuantity, Quantity, requestAboveLimitProblem } from '../shared/quantity';
import { KindInfo } from './schema-validator';
import type { PodSecurityException } from '../shared/pod-security';

/**
 * The Pod Security Standards *restricted* profile (with everything *baseline* forbids), pinned images, resource
 * requests and limits, and Job deadlines, checked on every pod template of the output.
 *
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/
 */

/** Volume types the restricted profile allows. */
export const RESTRICTED_VOLUME_TYPES: readonly string[] = [
  'configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret',
];

/** Sysctls the baseline profile allows (Kubernetes 1.30). */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
]);

const ALLOWED_SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const SECCOMP_OK = new Set(['RuntimeDefault', 'Localhost']);
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

/** Where the pod spec of each workload kind sits. */
const POD_SPEC_PATHS: Readonly<Record<string, FieldPath>> = {
  'v1/Pod': ['spec'],
  'v1/ReplicationController': ['spec', 'template', 'spec'],
  'v1/PodTemplate': ['template', 'spec'],
  'apps/Deployment': ['spec', 'template', 'spec'],
  'apps/StatefulSet': ['spec', 'template', 'spec'],
  'apps/DaemonSet': ['spec', 'template', 'spec'],
  'apps/ReplicaSet': ['spec', 'template', 'spec'],
  'batch/Job': ['spec', 'template', 'spec'],
  'batch/CronJob': ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

function groupKind(info: KindInfo): string {
  return `${info.apiVersion.includes('/') ? info.apiVersion.split('/')[0] : 'v1'}/${info.kind}`;
}

function get(v: unknown, path: FieldPath): unknown {
  let cur = v;
  for (const seg of path) {
    if (typeof seg === 'number' ? !Array.isArray(cur) : !isObject(cur)) return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/** How much of the pod we see: a whole object, or a patch that merges into an upstream one. */
type Mode = 'whole' | 'patch';

interface PodContext {
  readonly mode: Mode;
  readonly podSecurityContext: JsonObject | undefined;
  readonly out: Finding[];
}

function containerLabel(c: JsonObject): string {
  return typeof c.name === 'string' ? `container '${c.name}'` : 'container';
}

export { byteQuantityProblem, requestAboveLimitProblem };

function resourceFindings(resources: unknown, path: FieldPath, who: string, requireAll: boolean, out: Finding[]): void {
  const r = isObject(resources) ? resources : {};
  const requests = isObject(r.requests) ? r.requests : {};
  const limits = isObject(r.limits) ? r.limits : {};
  if (requireAll) {
    const missing = [
      requests.cpu === undefined ? 'requests.cpu' : undefined,
      requests.memory === undefined ? 'requests.memory' : undefined,
      limits.memory === undefined ? 'limits.memory' : undefined,
    ].filter((m): m is string => m !== undefined);
    if (missing.length > 0) {
      out.push({
        path,
        message: `${who} has no ${missing.join(', ')}; set CPU and memory requests and a memory limit so the scheduler `
          + 'can place it and a leak cannot starve the node',
      });
    }
  }
  const parsed: Record<'requests' | 'limits', Record<string, Quantity>> = { requests: {}, limits: {} };
  for (const [kindOf, map] of [['requests', requests], ['limits', limits]] as const) {
    for (const name of Object.keys(map).sort()) {
      const raw = map[name];
      if (typeof raw !== 'string' && typeof raw !== 'number') continue; // the schema reports the type
      const q = parseQuantity(raw);
      if (!q) continue; // the schema reports the syntax
      parsed[kindOf][name] = q;
      const bytesProblem = (name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) ? byteQuantityProblem(name, raw, q) : undefined;
      if (bytesProblem) out.push({ path: [...path, kindOf, name], message: `${who}: ${bytesProblem}` });
    }
  }
  for (const name of Object.keys(parsed.requests).sort()) {
    const req = parsed.requests[name];
    const lim = parsed.limits[name];
    if (lim && compareQuantities(req, lim) > 0) {
      out.push({
        path: [...path, 'requests', name],
        message: `${who}: ${requestAboveLimitProblem(name, req, lim)}`,
      });
    }
  }
}

function securityContextFindings(sc: JsonObject | undefined, path: FieldPath, who: string, out: Finding[]): void {
  if (!sc) return;
  if (sc.runAsUser === 0) {
    out.push({ path: [...path, 'runAsUser'], message: `${who} runs as uid 0 (root), which the restricted profile forbids; use a non-zero uid` });
  }
  if (sc.runAsNonRoot === false) {
    out.push({ path: [...path, 'runAsNonRoot'], message: `${who} sets runAsNonRoot: false, which the restricted profile forbids; set it to true` });
  }
  const seccomp = isObject(sc.seccompProfile) ? sc.seccompProfile.type : undefined;
  if (seccomp !== undefined && !SECCOMP_OK.has(String(seccomp))) {
    out.push({
      path: [...path, 'seccompProfile', 'type'],
      message: `${who} has seccomp profile ${show(seccomp)}; the restricted profile needs 'RuntimeDefault' or 'Localhost'`,
    });
  }
  const se = isObject(sc.seLinuxOptions) ? sc.seLinuxOptions : undefined;
  if (se) {
    if (se.type !== undefined && !ALLOWED_SELINUX_TYPES.has(String(se.type))) {
      out.push({ path: [...path, 'seLinuxOptions', 'type'], message: `${who} has SELinux type ${show(se.type)}; only container_t, container_init_t and container_kvm_t are allowed. Remove it` });
    }
    for (const f of ['user', 'role']) {
      if (se[f] !== undefined && se[f] !== '') {
        out.push({ path: [...path, 'seLinuxOptions', f], message: `${who} sets a custom SELinux ${f} ${show(se[f])}, which the baseline profile forbids; remove it` });
      }
    }
  }
  if (isObject(sc.windowsOptions) && sc.windowsOptions.hostProcess === true) {
    out.push({ path: [...path, 'windowsOptions', 'hostProcess'], message: `${who} is a Windows host process, which the baseline profile forbids; remove hostProcess` });
  }
  if (isObject(sc.appArmorProfile) && sc.appArmorProfile.type === 'Unconfined') {
    out.push({ path: [...path, 'appArmorProfile', 'type'], message: `${who} runs AppArmor 'Unconfined'; use 'RuntimeDefault' or 'Localhost'` });
  }
}

function containerFindings(c: JsonObject, path: FieldPath, list: string, ctx: PodContext): void {
  const who = containerLabel(c);
  const out = ctx.out;
  // In a patch, a container without an image merges into an upstream container: judge only what it sets.
  const whole = ctx.mode === 'whole' || typeof c.image === 'string';
  const sc = isObject(c.securityContext) ? c.securityContext : undefined;
  const scPath = [...path, 'securityContext'];
  securityContextFindings(sc, scPath, who, out);
  const podSc = ctx.podSecurityContext;
  if (whole) {
    if (sc?.allowPrivilegeEscalation !== false) {
      out.push({
        path: [...scPath, 'allowPrivilegeEscalation'],
        message: `${who} has allowPrivilegeEscalation ${show(sc?.allowPrivilegeEscalation)}; the restricted profile needs false. `
          + 'Set securityContext.allowPrivilegeEscalation: false',
      });
    }
    if (sc?.runAsNonRoot === undefined && podSc?.runAsNonRoot !== true) {
      out.push({
        path: [...scPath, 'runAsNonRoot'],
        message: `${who} may run as root: runAsNonRoot is set neither on it nor on the pod`
          + `${ctx.mode === 'patch' ? ' (a patch cannot rely on the upstream pod)' : ''}; set securityContext.runAsNonRoot: true`,
      });
    }
    const seccomp = isObject(sc?.seccompProfile) ? sc.seccompProfile.type : undefined;
    const podSeccomp = isObject(podSc?.seccompProfile) ? podSc.seccompProfile.type : undefined;
    if (seccomp === undefined && !SECCOMP_OK.has(String(podSeccomp))) {
      out.push({
        path: [...scPath, 'seccompProfile'],
        message: `${who} has no seccomp profile, on it or on the pod`
          + `${ctx.mode === 'patch' ? ' (a patch cannot rely on the upstream pod)' : ''}; set securityContext.seccompProfile.type: RuntimeDefault`,
      });
    }
    const caps = isObject(sc?.capabilities) ? sc.capabilities : undefined;
    const drop = Array.isArray(caps?.drop) ? caps.drop : [];
    if (!drop.includes('ALL')) {
      out.push({
        path: [...scPath, 'capabilities', 'drop'],
        message: `${who} drops ${drop.length ? show(drop) : 'no capabilities'}; the restricted profile needs capabilities.drop: [ALL]`,
      });
    }
  }
  if (!whole && sc?.allowPrivilegeEscalation === true) {
    out.push({
      path: [...scPath, 'allowPrivilegeEscalation'],
      message: `${who} has allowPrivilegeEscalation true; the restricted profile needs false. Set securityContext.allowPrivilegeEscalation: false`,
    });
  }
  if (sc?.privileged === true) {
    out.push({ path: [...scPath, 'privileged'], message: `${who} is privileged, which the baseline profile forbids; remove privileged: true` });
  }
  const add = isObject(sc?.capabilities) && Array.isArray(sc.capabilities.add) ? sc.capabilities.add : [];
  add.forEach((cap, i) => {
    if (cap !== 'NET_BIND_SERVICE') {
      out.push({
        path: [...scPath, 'capabilities', 'add', i],
        message: `${who} adds capability ${show(cap)}; the restricted profile allows adding only NET_BIND_SERVICE. Remove it`,
      });
    }
  });
  if (sc?.procMount !== undefined && sc.procMount !== 'Default') {
    out.push({ path: [...scPath, 'procMount'], message: `${who} has procMount ${show(sc.procMount)}; only 'Default' is allowed. Remove it` });
  }
  if (Array.isArray(c.ports)) {
    c.ports.forEach((p, i) => {
      if (isObject(p) && typeof p.hostPort === 'number' && p.hostPort !== 0) {
        out.push({ path: [...path, 'ports', i, 'hostPort'], message: `${who} binds host port ${p.hostPort}, which the baseline profile forbids; expose it with a Service instead` });
      }
    });
  }
  if (typeof c.image === 'string') {
    const problem = imagePinProblem(c.image);
    if (problem) out.push({ path: [...path, 'image'], message: `${who}: image ${show(c.image)} ${problem}` });
  } else if (ctx.mode === 'whole') {
    out.push({ path: [...path, 'image'], message: `${who} has no image; set a pinned image` });
  }
  // Ephemeral containers cannot have resources.
  if (list !== 'ephemeralContainers') resourceFindings(c.resources, [...path, 'resources'], who, whole, out);
}

function podSpecFindings(spec: JsonObject, path: FieldPath, templateMeta: JsonObject | undefined, metaPath: FieldPath, ctx: PodContext): void {
  const out = ctx.out;
  for (const host of ['hostNetwork', 'hostPID', 'hostIPC']) {
    if (spec[host] === true) {
      out.push({ path: [...path, host], message: `${host}: true shares the node's namespace with the pod, which the baseline profile forbids; remove it` });
    }
  }
  if (Array.isArray(spec.volumes)) {
    spec.volumes.forEach((vol, i) => {
      if (!isObject(vol)) return;
      const types = Object.keys(vol).filter((k) => k !== 'name' && k !== '$patch');
      for (const t of types) {
        if (t === 'hostPath') {
          out.push({
            path: [...path, 'volumes', i, 'hostPath'],
            message: `volume ${show(vol.name)} mounts host path ${show(isObject(vol.hostPath) ? vol.hostPath.path : undefined)}, which the baseline profile forbids; use a persistentVolumeClaim or emptyDir`,
          });
        } else if (!RESTRICTED_VOLUME_TYPES.includes(t)) {
          out.push({
            path: [...path, 'volumes', i, t],
            message: `volume ${show(vol.name)} has type '${t}', which the restricted profile forbids; use one of ${RESTRICTED_VOLUME_TYPES.join(', ')}`,
          });
        }
      }
    });
  }
  const podSc = ctx.podSecurityContext;
  securityContextFindings(podSc, [...path, 'securityContext'], 'the pod', out);
  if (podSc && Array.isArray(podSc.sysctls)) {
    podSc.sysctls.forEach((s, i) => {
      if (isObject(s) && !SAFE_SYSCTLS.has(String(s.name))) {
        out.push({ path: [...path, 'securityContext', 'sysctls', i, 'name'], message: `sysctl ${show(s.name)} is not in the baseline profile's safe set; remove it` });
      }
    });
  }
  const annotations = isObject(templateMeta?.annotations) ? templateMeta.annotations : {};
  for (const key of Object.keys(annotations).sort()) {
    const value = annotations[key];
    if (key.startsWith(APPARMOR_ANNOTATION) && value !== 'runtime/default' && !String(value).startsWith('localhost/')) {
      out.push({ path: [...metaPath, 'annotations', key], message: `AppArmor profile ${show(value)} is not allowed; use 'runtime/default' or 'localhost/<profile>'` });
    }
  }
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    containers.forEach((c, i) => {
      if (isObject(c)) containerFindings(c, [...path, list, i], list, ctx);
    });
  }
}

/** True for kinds with a pod template that these rules cover. */
export function hasPodTemplate(info: KindInfo): boolean {
  return groupKind(info) in POD_SPEC_PATHS;
}

/**
 * Security and resource rules for the pod template of a workload (Pod, Deployment, StatefulSet, DaemonSet,
 * ReplicaSet, Job, CronJob), and the deadline of Jobs. A patch is judged on what it contains: its containers
 * with an image are new containers and meet every container rule on their own.
 */
export function podTemplateFindings(doc: ManifestDocument, info: KindInfo): Finding[] {
  const gk = groupKind(info);
  const specPath = POD_SPEC_PATHS[gk];
  const out: Finding[] = [];
  if (!specPath) return out;
  const mode: Mode = doc.role === 'patch' ? 'patch' : 'whole';
  const spec = get(doc.value, specPath);
  if (isObject(spec)) {
    const metaPath = [...specPath.slice(0, -1), 'metadata'];
    const meta = get(doc.value, metaPath);
    const podSecurityContext = isObject(spec.securityContext) ? spec.securityContext : undefined;
    podSpecFindings(spec, specPath, isObject(meta) ? meta : undefined, metaPath, { mode, podSecurityContext, out });
  }
  if (mode === 'whole' && (gk === 'batch/Job' || gk === 'batch/CronJob')) {
    const jobSpecPath: FieldPath = gk === 'batch/Job' ? ['spec'] : ['spec', 'jobTemplate', 'spec'];
    const deadline = get(doc.value, [...jobSpecPath, 'activeDeadlineSeconds']);
    if (deadline === undefined) {
      out.push({
        path: [...jobSpecPath, 'activeDeadlineSeconds'],
        message: `${info.kind} has no activeDeadlineSeconds, so a stuck run never ends and blocks whatever waits for it; set a deadline`,
      });
    }
  }
  return out;
}

/**
 * The same image and resource rules for the one custom resource here that defines pods: a CNPG `Cluster` runs
 * its PostgreSQL containers from `spec.imageName` with `spec.resources`.
 */
export function cnpgClusterFindings(doc: ManifestDocument, info: KindInfo): Finding[] {
  const out: Finding[] = [];
  if (info.apiVersion !== 'postgresql.cnpg.io/v1' || info.kind !== 'Cluster') return out;
  const spec = isObject(doc.value.spec) ? doc.value.spec : {};
  if (typeof spec.imageName === 'string') {
    const problem = imagePinProblem(spec.imageName);
    if (problem) out.push({ path: ['spec', 'imageName'], message: `PostgreSQL image ${show(spec.imageName)} ${problem}` });
  }
  resourceFindings(spec.resources, ['spec', 'resources'], 'the PostgreSQL container', doc.role === 'object', out);
  return out;
}

/**
 * `findings` of `podTemplateFindings` without those an exception allows: the findings under
 * `<pod spec>.containers[i].securityContext.<field>` of the excepted container of `object`, for its fields only.
 */
export function exceptedFindings(findings: Finding[], doc: ManifestDocument, info: KindInfo, object: string,
  exceptions: readonly PodSecurityException[]): Finding[] {
  const specPath = POD_SPEC_PATHS[groupKind(info)];
  const mine = exceptions.filter((e) => e.object === object && e.reason.trim() !== '');
  if (!specPath || mine.length === 0) return findings;
  const containers = get(doc.value, [...specPath, 'containers']);
  if (!Array.isArray(containers)) return findings;
  const allowed: string[] = [];
  for (const e of mine) {
    const i = containers.findIndex((c) => isObject(c) && c.name === e.container);
    if (i < 0) continue;
    for (const field of e.fields) allowed.push(formatPath([...specPath, 'containers', i, 'securityContext', field]));
  }
  return findings.filter((f) => {
    const at = formatPath(f.path);
    return !allowed.some((prefix) => at === prefix || at.startsWith(`${prefix}.`));
  });
}

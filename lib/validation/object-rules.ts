import { FieldPath, Finding, isObject, JsonObject, show } from './field-path';
import { ManifestDocument } from './manifest-documents';
import {
  dns1035LabelProblem, dns1123LabelProblem, dns1123SubdomainProblem, ianaServiceNameProblem, labelValueProblem,
  pathSegmentProblem, qualifiedNameProblem,
} from './names';
import { KindInfo } from './schema-validator';

/** The API server's limit on the total size of an object's annotations. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/** Returns why `name` is not a valid `metadata.name` for the kind, or undefined. */
function nameProblem(info: KindInfo, name: string): string | undefined {
  const group = info.apiVersion.includes('/') ? info.apiVersion.split('/')[0] : '';
  if (group === 'rbac.authorization.k8s.io' && RBAC_KINDS.has(info.kind)) return pathSegmentProblem(name);
  if (group === '' && info.kind === 'Namespace') return dns1123LabelProblem(name);
  if (group === '' && info.kind === 'Service') return dns1035LabelProblem(name);
  if (group === 'apps' && info.kind === 'StatefulSet') return dns1123LabelProblem(name);
  if (group === 'postgresql.cnpg.io' && info.kind === 'Cluster') {
    // CNPG's webhook: the name becomes Service names (`<name>-rw`), so no dots, and at most 50 characters.
    return dns1035LabelProblem(name, 50);
  }
  if (group === 'batch' && info.kind === 'Job') {
    // The Job controller puts the name in the `batch.kubernetes.io/job-name` label of its pods.
    return dns1123SubdomainProblem(name, 63);
  }
  if (group === 'batch' && info.kind === 'CronJob') {
    // Job names are the CronJob name plus an 11-character suffix, and must fit a label value.
    return dns1123SubdomainProblem(name, 52);
  }
  return dns1123SubdomainProblem(name);
}

/** Checks a label map: keys are qualified names, values are strings of label-value syntax. */
function labelFindings(labels: unknown, path: FieldPath, out: Finding[]): void {
  if (!isObject(labels)) return;
  for (const key of Object.keys(labels).sort()) {
    const value = labels[key];
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) out.push({ path: [...path, key], message: `label key '${key}' ${keyProblem}; rename the label` });
    if (typeof value !== 'string') {
      out.push({
        path: [...path, key],
        message: `label value ${show(value)} is ${value === null ? 'null' : `a ${typeof value}`}, not a string; `
          + `quote it ('${String(value)}') in the generator`,
      });
      continue;
    }
    const valueProblem = labelValueProblem(value);
    if (valueProblem) out.push({ path: [...path, key], message: `label value ${show(value)} ${valueProblem}; shorten or change it` });
  }
}

/** Checks an annotation map: keys are qualified names, values are strings, and all of it fits 256 KiB. */
function annotationFindings(annotations: unknown, path: FieldPath, out: Finding[]): void {
  if (!isObject(annotations)) return;
  let bytes = 0;
  for (const key of Object.keys(annotations).sort()) {
    const value = annotations[key];
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) out.push({ path: [...path, key], message: `annotation key '${key}' ${keyProblem}; rename the annotation` });
    if (typeof value !== 'string') {
      out.push({
        path: [...path, key],
        message: `annotation value ${show(value)} is ${value === null ? 'null' : `a ${typeof value}`}, not a string; `
          + `quote it ('${String(value)}') in the generator`,
      });
      continue;
    }
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (bytes > MAX_ANNOTATIONS_BYTES) {
    out.push({ path, message: `annotations total ${bytes} bytes, more than the 262144 the API server accepts; move the data to a ConfigMap` });
  }
}

function portNameFinding(value: unknown, path: FieldPath, what: string, out: Finding[]): void {
  if (typeof value !== 'string') return;
  const problem = ianaServiceNameProblem(value);
  if (problem) out.push({ path, message: `${what} '${value}' ${problem}; use a shorter name such as '${value.slice(0, 15).replace(/-+$/, '')}' or a number` });
}

const PROBE_KEYS = ['livenessProbe', 'readinessProbe', 'startupProbe'];
const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];

/**
 * Walks the whole document for what schemas cannot express: label and annotation syntax wherever an ObjectMeta,
 * a selector or a node selector appears, and port names in containers and probes.
 */
function walkFindings(v: unknown, path: FieldPath, out: Finding[]): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => walkFindings(x, [...path, i], out));
    return;
  }
  if (!isObject(v)) return;
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (typeof parent === 'string' && CONTAINER_LISTS.includes(parent) && typeof last === 'number') {
    const ports = v.ports;
    if (Array.isArray(ports)) {
      ports.forEach((p, i) => {
        if (isObject(p)) portNameFinding(p.name, [...path, 'ports', i, 'name'], 'container port name', out);
      });
    }
    for (const probeKey of PROBE_KEYS) {
      const probe = v[probeKey];
      if (!isObject(probe)) continue;
      for (const handler of ['httpGet', 'tcpSocket']) {
        const h = probe[handler];
        if (isObject(h)) portNameFinding(h.port, [...path, probeKey, handler, 'port'], 'probe port name', out);
      }
    }
  }
  for (const [key, child] of Object.entries(v)) {
    if (key === 'metadata' && isObject(child)) {
      labelFindings(child.labels, [...path, 'metadata', 'labels'], out);
      annotationFindings(child.annotations, [...path, 'metadata', 'annotations'], out);
    }
    if (key === 'matchLabels' || key === 'nodeSelector') labelFindings(child, [...path, key], out);
    walkFindings(child, [...path, key], out);
  }
}

/** Service-specific: port names are DNS labels, and a named targetPort must be a valid container port name. */
function serviceFindings(value: JsonObject, out: Finding[]): void {
  const spec = value.spec;
  if (!isObject(spec)) return;
  labelFindings(spec.selector, ['spec', 'selector'], out);
  if (!Array.isArray(spec.ports)) return;
  spec.ports.forEach((p, i) => {
    if (!isObject(p)) return;
    if (typeof p.name === 'string') {
      const problem = dns1123LabelProblem(p.name);
      if (problem) out.push({ path: ['spec', 'ports', i, 'name'], message: `Service port name '${p.name}' ${problem}; rename it` });
    }
    portNameFinding(p.targetPort, ['spec', 'ports', i, 'targetPort'], 'targetPort name', out);
  });
}

/** Where the object ends up: its namespace after kustomize, for messages and identity. */
export function effectiveNamespace(doc: ManifestDocument, info: KindInfo | undefined): string | undefined {
  if (info && !info.namespaced) return undefined;
  const meta = doc.value.metadata;
  const own = isObject(meta) && typeof meta.namespace === 'string' ? meta.namespace : undefined;
  return doc.kustomizeNamespace ?? own;
}

/**
 * Rules for any object that schemas miss: the name syntax of its kind, its namespace (none on a cluster-scoped
 * kind; one on a namespaced kind unless kustomize sets it), label and annotation syntax, port names.
 */
export function objectFindings(doc: ManifestDocument, info: KindInfo): Finding[] {
  const out: Finding[] = [];
  const meta = isObject(doc.value.metadata) ? doc.value.metadata : undefined;
  const name = meta?.name;
  if (typeof name === 'string') {
    const problem = nameProblem(info, name);
    if (problem) out.push({ path: ['metadata', 'name'], message: `${info.kind} name '${name}' ${problem}; choose a valid name` });
  } else if (doc.role === 'object' && typeof meta?.generateName !== 'string') {
    out.push({ path: ['metadata', 'name'], message: `${info.kind} has no name; kubectl apply and Argo CD need one. Set metadata.name` });
  }
  const ns = meta?.namespace;
  if (ns !== undefined) {
    if (!info.namespaced) {
      out.push({
        path: ['metadata', 'namespace'],
        message: `${info.kind} is cluster-scoped but has namespace ${show(ns)}; remove metadata.namespace`,
      });
    } else if (typeof ns === 'string') {
      const problem = dns1123LabelProblem(ns);
      if (problem) out.push({ path: ['metadata', 'namespace'], message: `namespace '${ns}' ${problem}; fix the namespace` });
    }
  } else if (info.namespaced && doc.role === 'object' && doc.kustomizeNamespace === undefined) {
    out.push({
      path: ['metadata', 'namespace'],
      message: `${info.kind} is namespaced but has no namespace, so it lands in whatever namespace the applying context uses; `
        + (doc.inKustomization ? 'set metadata.namespace, or namespace: in the kustomization' : 'set metadata.namespace'),
    });
  }
  if (info.alpha) {
    out.push({
      path: ['apiVersion'],
      message: `${info.apiVersion} is an alpha API that Kubernetes 1.30 serves only behind a feature gate; use a GA version of ${info.kind}`,
    });
  }
  walkFindings(doc.value, [], out);
  if (info.kind === 'Service' && info.apiVersion === 'v1') serviceFindings(doc.value, out);
  return out;
}

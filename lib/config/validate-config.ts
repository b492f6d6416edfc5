import { validateArgoCdConfig } from '../argocd/validate-argocd-config';
import { CNPG_RESOURCE_DEFAULTS } from '../bootstrap/cnpg/cnpg-cluster';
import { ProblemCollector } from '../shared/errors';
import { byteQuantityProblem, requestAboveLimitProblem } from '../validation/pod-security';
import { compareQuantities, parseQuantity } from '../validation/quantity';
import { findSecrets } from '../validation/secret-scanner';
import { dnsLabelProblem, kubernetesNameForPg, pgIdentifierProblem, RESERVED_DATABASE_NAMES } from '../shared/names';
import { HomelabConfig } from './homelab-config';

/** Components that exist before Argo CD can sync at all; making one an Application re-creates the circle. */
export const DEFAULT_PHASE0_COMPONENTS: readonly string[] = ['cnpg-operator', 'forgejo', 'forgejo-db', 'longhorn'];

const POD_SECURITY_LEVELS = ['privileged', 'baseline', 'restricted'];
const QUANTITY = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
const GITHUB_SSH_URL = /^(git@github\.com:|ssh:\/\/git@github\.com\/)([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(\.git)?$/;

/** Sorted keys, so problems are reported in a stable order. */
function keys<T>(record: Readonly<Record<string, T>> | undefined): string[] {
  return Object.keys(record ?? {}).sort();
}

/**
 * Checks the Phase-0 part of the config and collects every problem, each with its config path, the value
 * and the fix. The Argo CD tree validates its own section when it is built.
 */
export function validateConfig(config: HomelabConfig, problems = new ProblemCollector()): ProblemCollector {
  // Other rules echo the values they reject; with a secret in the config, report only where the secrets are.
  if (secretProblems(config, problems)) return problems;
  const namespaces = new Set(keys(config.namespaces));
  const nsProblem = (path: string, ns: string) => problems.when(!namespaces.has(ns), path,
    () => `namespace '${ns}' is not declared. Add it under 'namespaces' (declared: ${[...namespaces].join(', ') || 'none'}).`);

  for (const name of keys(config.namespaces)) {
    const ns = config.namespaces[name];
    const bad = dnsLabelProblem(name);
    problems.when(bad !== undefined, `namespaces.${name}`, () => `'${name}' is not a valid namespace name: ${bad}.`);
    for (const field of ['podSecurity', 'podSecurityWarn'] as const) {
      const level = ns[field];
      problems.when(level !== undefined && !POD_SECURITY_LEVELS.includes(level), `namespaces.${name}.${field}`,
        () => `'${level}' is not a Pod Security level; use one of ${POD_SECURITY_LEVELS.join(', ')}.`);
    }
  }

  for (const name of keys(config.postgresClusters)) {
    const c = config.postgresClusters[name];
    const path = `postgresClusters.${name}`;
    // CNPG derives `<name>-rw`, `<name>-app`, `<name>-<n>` from the cluster name; keep room for the suffixes.
    const bad = dnsLabelProblem(name, 50);
    problems.when(bad !== undefined, path, () => `'${name}' is not a valid cluster name: ${bad}.`);
    nsProblem(`${path}.namespace`, c.namespace);
    problems.when(c.instances !== undefined && (!Number.isInteger(c.instances) || c.instances < 1), `${path}.instances`,
      () => `must be an integer of at least 1, got ${c.instances}.`);
    for (const field of ['initdbDatabase', 'initdbOwner'] as const) {
      const value = c[field];
      const why = value === undefined ? undefined : pgIdentifierProblem(value);
      problems.when(why !== undefined, `${path}.${field}`, () => `'${value}' is not a valid PostgreSQL name: ${why}.`);
    }
    const initdbDatabase = c.initdbDatabase ?? 'app';
    problems.when(RESERVED_DATABASE_NAMES.includes(initdbDatabase), `${path}.initdbDatabase`,
      () => `'${initdbDatabase}' is reserved by PostgreSQL; choose another name.`);
    for (const role of c.managedRoles ?? []) {
      const why = pgIdentifierProblem(role);
      problems.when(why !== undefined, `${path}.managedRoles`, () => `'${role}' is not a valid PostgreSQL role name: ${why}.`);
    }
    problems.when(c.storageSize !== undefined && !QUANTITY.test(c.storageSize), `${path}.storageSize`,
      () => `'${c.storageSize}' is not a Kubernetes quantity; write it like '10Gi'.`);
    resourceProblems(path, c, problems);
  }

  const k8sNames = new Map<string, string>();
  for (const pgName of keys(config.databases)) {
    const db = config.databases[pgName];
    const path = `databases.${pgName}`;
    const why = pgIdentifierProblem(pgName);
    problems.when(why !== undefined, path, () => `'${pgName}' is not a valid PostgreSQL database name: ${why}.`);
    problems.when(RESERVED_DATABASE_NAMES.includes(pgName), path,
      () => `'${pgName}' is reserved by PostgreSQL and must not be managed by CNPG; choose another name.`);
    const cluster = config.postgresClusters[db.cluster];
    if (!cluster) {
      problems.add(`${path}.cluster`, `unknown postgres cluster '${db.cluster}'. ` +
        `Declare it under 'postgresClusters' or use one of: ${keys(config.postgresClusters).join(', ') || 'none'}.`);
      continue;
    }
    const initdbDatabase = cluster.initdbDatabase ?? 'app';
    problems.when(initdbDatabase === pgName, path, () => `cluster '${db.cluster}' already has a database '${pgName}' ` +
      `(its initdbDatabase); two databases with one PostgreSQL name on one cluster would fight. Remove databases.${pgName}.`);
    const k8sName = kubernetesNameForPg(pgName);
    const key = `${cluster.namespace}/${k8sName}`;
    const clash = k8sNames.get(key);
    problems.when(clash !== undefined, path, () => `its Kubernetes name '${k8sName}' in namespace '${cluster.namespace}' ` +
      `is also the name of databases.${clash}; rename one of them.`);
    k8sNames.set(key, pgName);
    const badK8s = dnsLabelProblem(k8sName);
    problems.when(why === undefined && badK8s !== undefined, path, () => `its Kubernetes name '${k8sName}' ${badK8s}.`);
    if (db.owner === undefined || db.owner === '') {
      problems.add(`${path}.owner`, `a database needs an owner role; set it to '${cluster.initdbOwner ?? initdbDatabase}' ` +
        `(the cluster's initdb owner) or to one of its managedRoles.`);
    } else {
      const roles = [cluster.initdbOwner ?? initdbDatabase, ...(cluster.managedRoles ?? [])];
      problems.when(!roles.includes(db.owner), `${path}.owner`, () => `role '${db.owner}' does not exist on cluster ` +
        `'${db.cluster}' (roles: ${roles.join(', ')}); CNPG never creates a database owner. ` +
        `Add it to postgresClusters.${db.cluster}.managedRoles.`);
    }
    problems.when((db.deliveredBy ?? 'bootstrap') === 'bootstrap' && (cluster.deliveredBy ?? 'bootstrap') === 'argocd',
      `${path}.deliveredBy`, () => `the database is delivered in Phase 0 but its cluster '${db.cluster}' is delivered by ` +
        `Argo CD, so it would be applied before its cluster exists. Set deliveredBy: 'argocd' or move the cluster to Phase 0.`);
  }

  validateForgejo(config, problems, nsProblem);
  validateGit(config, problems);

  const phase0 = new Set([
    ...(config.phase0Components ?? DEFAULT_PHASE0_COMPONENTS),
    ...keys(config.postgresClusters).filter((c) => (config.postgresClusters[c].deliveredBy ?? 'bootstrap') === 'bootstrap'),
  ]);
  for (const app of keys(config.argocd.applications)) {
    problems.when(phase0.has(app), `argocd.applications.${app}`, () => `'${app}' is a Phase-0 component and must never be an ` +
      'Argo CD Application: Argo CD syncs from the git repository that Forgejo serves, and Forgejo needs CNPG and storage, ' +
      'so managing it from Argo CD re-creates the bootstrap circle. Remove the Application; the bootstrap runbook owns it.');
  }
  // An Application that must be removed gets no further advice.
  const applications = Object.fromEntries(Object.entries(config.argocd.applications).filter(([app]) => !phase0.has(app)));
  validateArgoCdConfig({ ...config, argocd: { ...config.argocd, applications } }, problems);
  return problems;
}

/**
 * CPU and memory of a cluster's instances: valid quantities, memory in bytes (never `400m`, which is 0.4
 * bytes), and the memory request not above the limit. The messages are the output validator's.
 */
function resourceProblems(path: string, c: HomelabConfig['postgresClusters'][string], problems: ProblemCollector): void {
  const fields = ['cpuRequest', 'memoryRequest', 'memoryLimit'] as const;
  const parsed = new Map<string, ReturnType<typeof parseQuantity>>();
  for (const field of fields) {
    const raw = c[field];
    const q = parseQuantity(raw ?? CNPG_RESOURCE_DEFAULTS[field]);
    problems.when(raw !== undefined && q === undefined, `${path}.${field}`,
      () => `'${raw}' is not a Kubernetes quantity; write it like '${CNPG_RESOURCE_DEFAULTS[field]}'.`);
    if (!q) continue;
    const bytes = field === 'cpuRequest' ? undefined : byteQuantityProblem('memory', q.text, q);
    problems.when(bytes !== undefined, `${path}.${field}`, () => `${bytes}.`);
    if (bytes === undefined) parsed.set(field, q);
  }
  const request = parsed.get('memoryRequest');
  const limit = parsed.get('memoryLimit');
  problems.when(request !== undefined && limit !== undefined && compareQuantities(request, limit) > 0, `${path}.memoryRequest`,
    () => `${requestAboveLimitProblem('memory', request!, limit!)}.`);
}

/**
 * Private keys and GitHub tokens anywhere in the config (every string, at any depth), with the scanner of the
 * output: the config is committed and rendered into dist/. The message shows at most a short prefix.
 */
function secretProblems(config: HomelabConfig, problems: ProblemCollector): boolean {
  let found = false;
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'string') {
      for (const s of findSecrets(v)) {
        found = true;
        problems.add(path, `contains ${s.what}. Never put secrets in the homelab config: it is committed and rendered into dist/. ` +
          `${s.kind === 'github-token' ? 'Revoke the token on GitHub, then d' : 'D'}eliver it as a Secret (SOPS or a local file read ` +
          'at apply time) and reference the Secret by name.');
      }
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
    } else if (typeof v === 'object' && v !== null) {
      for (const k of Object.keys(v).sort()) walk((v as Record<string, unknown>)[k], path === '' ? k : `${path}.${k}`);
    }
  };
  walk(config, '');
  return found;
}

function validateForgejo(config: HomelabConfig, problems: ProblemCollector, nsProblem: (p: string, ns: string) => void): void {
  const f = config.forgejo;
  const namespace = f.namespace ?? 'cicd';
  nsProblem('forgejo.namespace', namespace);
  const target = resolveForgejoDatabase(config);
  if (target.kind === 'unknown') {
    problems.add('forgejo.database', `no database '${f.database}' is declared: add it under 'databases' or ` +
      'set it to the initdbDatabase of a cluster under \'postgresClusters\'.');
    return;
  }
  if (target.kind === 'ambiguous') {
    problems.add('forgejo.database', `'${f.database}' is ambiguous: it is declared on clusters ${target.clusters.join(', ')}. ` +
      'Give the databases distinct names.');
    return;
  }
  const cluster = config.postgresClusters[target.cluster];
  problems.when((cluster.deliveredBy ?? 'bootstrap') !== 'bootstrap' || target.deliveredBy !== 'bootstrap', 'forgejo.database',
    () => `Forgejo is a Phase-0 component, so its database '${f.database}' and cluster '${target.cluster}' must be ` +
      'delivered by the bootstrap (deliveredBy: \'bootstrap\'), not by Argo CD.');
  const ownerIsInitdb = target.owner === (cluster.initdbOwner ?? cluster.initdbDatabase ?? 'app');
  problems.when(f.databaseSecret === undefined && (cluster.namespace !== namespace || !ownerIsInitdb), 'forgejo.databaseSecret',
    () => `Forgejo cannot use the CNPG-generated '${target.cluster}-app' Secret: ` +
      (cluster.namespace !== namespace
        ? `the cluster is in namespace '${cluster.namespace}' and Forgejo in '${namespace}'. `
        : `the database owner '${target.owner}' is not the cluster's initdb owner. `) +
      `Set forgejo.databaseSecret to a Secret in '${namespace}' with keys username and password.`);
}

/** Where Forgejo's database lives: a `Database` CR or a cluster's initdb database. */
export type ForgejoDatabaseTarget =
  | { kind: 'found'; cluster: string; owner: string; deliveredBy: 'bootstrap' | 'argocd'; viaDatabaseCr: boolean }
  | { kind: 'unknown' }
  | { kind: 'ambiguous'; clusters: string[] };

/** Resolves `forgejo.database` to its cluster, owner and delivery. */
export function resolveForgejoDatabase(config: HomelabConfig): ForgejoDatabaseTarget {
  const name = config.forgejo.database;
  const found: ForgejoDatabaseTarget[] = [];
  const db = config.databases[name];
  if (db && config.postgresClusters[db.cluster]) {
    found.push({ kind: 'found', cluster: db.cluster, owner: db.owner, deliveredBy: db.deliveredBy ?? 'bootstrap', viaDatabaseCr: true });
  }
  for (const cluster of keys(config.postgresClusters)) {
    const c = config.postgresClusters[cluster];
    // A Database CR on the same cluster is already reported as a duplicate of the initdb database.
    if ((c.initdbDatabase ?? 'app') === name && !(db && db.cluster === cluster)) {
      found.push({ kind: 'found', cluster, owner: c.initdbOwner ?? name, deliveredBy: c.deliveredBy ?? 'bootstrap', viaDatabaseCr: false });
    }
  }
  if (found.length === 0) return { kind: 'unknown' };
  if (found.length > 1) return { kind: 'ambiguous', clusters: found.map((f) => (f.kind === 'found' ? f.cluster : '')).sort() };
  return found[0];
}

function validateGit(config: HomelabConfig, problems: ProblemCollector): void {
  const g = config.git;
  problems.when(!GITHUB_SSH_URL.test(g.githubSeedUrl), 'git.githubSeedUrl', () => `'${g.githubSeedUrl}' is not a GitHub SSH URL; ` +
    'write it like \'git@github.com:owner/homelab.git\' (the deploy key is an SSH key).');
  problems.when(g.source !== undefined && g.source !== 'github' && g.source !== 'forgejo', 'git.source',
    () => `'${g.source}' is not a git source; use 'github' or 'forgejo'.`);
  const dist = g.distPath ?? 'k8s/generated';
  problems.when(dist.startsWith('/') || dist.split('/').includes('..') || dist === '' || dist.endsWith('/'), 'git.distPath',
    () => `'${dist}' must be a relative path inside the homelab repository, without '..' or a trailing '/', e.g. 'k8s/generated'.`);
}

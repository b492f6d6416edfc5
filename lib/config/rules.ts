/**
 * The rules of the config that span fields, as one table: each reads the resolved config and records every
 * problem with its config path, the value and the fix. `parseHomelabConfig()` runs them after the schema, in
 * table order; sections outside lib/config (the Argo CD tree) add their own rules through `extraRules`.
 * Single-field rules (names, quantities, enums, git refs, URLs) are in the schema itself.
 */
import { inClusterEndpoint } from '../shared/backup';
import { ProblemCollector } from '../shared/errors';
import { dnsLabelProblem, kubernetesNameForPg, pgIdentifierProblem } from '../shared/names';
import { compareQuantities, hasSubUnitSuffix, parseQuantity, requestAboveLimitProblem } from '../shared/quantity';
import { matchSignature, Phase0Signature, PHASE0_SIGNATURES, SignatureMatch, signaturePath } from './phase0-signatures';
import type { ResolvedHomelabConfig } from './resolved';
import { rolloutsRules } from './delivery/rollouts-rules';
import { e2eRules } from './delivery/e2e-rules';
import { kyvernoRules } from './delivery/kyverno-rules';
import { imageUpdaterRules } from './delivery/image-updater-rules';
import { buildRules } from './delivery/build-rules';
import { appsRules } from './delivery/apps-rules';

/** One rule of the table. */
export interface ConfigRule {
  /** What the rule checks, for readers and test names. */
  readonly name: string;
  readonly check: (config: ResolvedHomelabConfig, problems: ProblemCollector) => void;
}

/** Sorted keys, so problems are reported in a stable order. */
function keys<T>(record: Readonly<Record<string, T>>): string[] {
  return Object.keys(record).sort();
}

/** A problem for a namespace reference that `namespaces` does not declare. */
function namespaceDeclared(config: ResolvedHomelabConfig, problems: ProblemCollector, path: string, ns: string): void {
  problems.when(!(ns in config.namespaces), path,
    () => `namespace '${ns}' is not declared. Add it under 'namespaces' (declared: ${keys(config.namespaces).join(', ') || 'none'}).`);
}

/**
 * Names that must never be Argo CD Applications: `phase0Components` and every cluster the bootstrap delivers.
 * The Argo CD rules skip them (they are reported once, here).
 */
export function phase0Components(config: ResolvedHomelabConfig): ReadonlySet<string> {
  const adopters = new Set(phase0Adopters(config).values());
  return new Set([
    ...config.phase0Components,
    ...keys(config.postgresClusters).filter((c) => config.postgresClusters[c].deliveredBy === 'bootstrap'),
  ].filter((name) => !adopters.has(name)));
}

/**
 * The Applications the config designates to adopt a Phase-0 Helm release, by component (`cilium.adoptedBy`,
 * `longhorn.adoptedBy`). Only that Application may carry the component's chart; that it renders the very release
 * the runbook installs is checked where the release is known (lib/homelab/phase0-adoption.ts).
 */
export function phase0Adopters(config: ResolvedHomelabConfig): ReadonlyMap<string, string> {
  const adopters = new Map<string, string>();
  if (config.cilium.adoptedBy !== null) adopters.set('cilium', config.cilium.adoptedBy);
  if (config.longhorn.adoptedBy !== null) adopters.set('longhorn', config.longhorn.adoptedBy);
  return adopters;
}

/** Where Forgejo's database lives: a `Database` CR or a cluster's initdb database. */
export type ForgejoDatabaseTarget =
  | { kind: 'found'; cluster: string; owner: string; deliveredBy: 'bootstrap' | 'argocd'; viaDatabaseCr: boolean }
  | { kind: 'unknown' }
  | { kind: 'ambiguous'; clusters: string[] };

/** Resolves `forgejo.database` to its cluster, owner and delivery. */
export function resolveForgejoDatabase(config: ResolvedHomelabConfig): ForgejoDatabaseTarget {
  const name = config.forgejo.database;
  const found: ForgejoDatabaseTarget[] = [];
  const db = config.databases[name];
  if (db && config.postgresClusters[db.cluster]) {
    found.push({ kind: 'found', cluster: db.cluster, owner: db.owner, deliveredBy: db.deliveredBy, viaDatabaseCr: true });
  }
  for (const cluster of keys(config.postgresClusters)) {
    const c = config.postgresClusters[cluster];
    // A Database CR on the same cluster is already reported as a duplicate of the initdb database.
    if (c.initdbDatabase === name && !(db && db.cluster === cluster)) {
      found.push({ kind: 'found', cluster, owner: c.initdbOwner, deliveredBy: c.deliveredBy, viaDatabaseCr: false });
    }
  }
  if (found.length === 0) return { kind: 'unknown' };
  if (found.length > 1) return { kind: 'ambiguous', clusters: found.map((f) => (f.kind === 'found' ? f.cluster : '')).sort() };
  return found[0];
}

const clusterRules: ConfigRule = {
  name: 'each cluster lives in a declared namespace, and its memory request is not above its limit',
  check: (config, problems) => {
    for (const name of keys(config.postgresClusters)) {
      const c = config.postgresClusters[name];
      const path = `postgresClusters.${name}`;
      namespaceDeclared(config, problems, `${path}.namespace`, c.namespace);
      // A quantity that is not a byte count is reported by the schema; comparing it would add nothing.
      const bytes = (raw: string) => { const q = parseQuantity(raw); return q && !hasSubUnitSuffix(q) ? q : undefined; };
      const request = bytes(c.memoryRequest);
      const limit = bytes(c.memoryLimit);
      problems.when(request !== undefined && limit !== undefined && compareQuantities(request, limit) > 0, `${path}.memoryRequest`,
        () => `${requestAboveLimitProblem('memory', request!, limit!)}.`);
    }
  },
};

const databaseRules: ConfigRule = {
  name: 'each database is on a declared cluster, owned by one of its roles, delivered no earlier than its cluster, ' +
    'and unique by PostgreSQL and Kubernetes name',
  check: (config, problems) => {
    const k8sNames = new Map<string, string>();
    for (const pgName of keys(config.databases)) {
      const db = config.databases[pgName];
      const path = `databases.${pgName}`;
      const cluster = config.postgresClusters[db.cluster];
      if (!cluster) {
        problems.add(`${path}.cluster`, `unknown postgres cluster '${db.cluster}'. ` +
          `Declare it under 'postgresClusters' or use one of: ${keys(config.postgresClusters).join(', ') || 'none'}.`);
        continue;
      }
      problems.when(cluster.initdbDatabase === pgName, path, () => `cluster '${db.cluster}' already has a database '${pgName}' ` +
        `(its initdbDatabase); two databases with one PostgreSQL name on one cluster would fight. Remove databases.${pgName}.`);
      const k8sName = kubernetesNameForPg(pgName);
      const key = `${cluster.namespace}/${k8sName}`;
      const clash = k8sNames.get(key);
      problems.when(clash !== undefined, path, () => `its Kubernetes name '${k8sName}' in namespace '${cluster.namespace}' ` +
        `is also the name of databases.${clash}; rename one of them.`);
      k8sNames.set(key, pgName);
      const badK8s = dnsLabelProblem(k8sName);
      // An invalid PostgreSQL name is reported by the schema; its Kubernetes name adds nothing.
      problems.when(badK8s !== undefined && pgIdentifierProblem(pgName) === undefined, path, () => `its Kubernetes name '${k8sName}' ${badK8s}.`);
      if (db.owner === '') {
        problems.add(`${path}.owner`, `a database needs an owner role; set it to '${cluster.initdbOwner}' ` +
          '(the cluster\'s initdb owner) or to one of its managedRoles.');
      } else {
        const roles = [cluster.initdbOwner, ...cluster.managedRoles];
        problems.when(!roles.includes(db.owner), `${path}.owner`, () => `role '${db.owner}' does not exist on cluster ` +
          `'${db.cluster}' (roles: ${roles.join(', ')}); CNPG never creates a database owner. ` +
          `Add it to postgresClusters.${db.cluster}.managedRoles.`);
      }
      problems.when(db.deliveredBy === 'bootstrap' && cluster.deliveredBy === 'argocd',
        `${path}.deliveredBy`, () => `the database is delivered in Phase 0 but its cluster '${db.cluster}' is delivered by ` +
          'Argo CD, so it would be applied before its cluster exists. Set deliveredBy: \'argocd\' or move the cluster to Phase 0.');
    }
  },
};

const forgejoRules: ConfigRule = {
  name: 'Forgejo lives in a declared namespace and uses one Phase-0 database whose credentials it can read',
  check: (config, problems) => {
    const f = config.forgejo;
    namespaceDeclared(config, problems, 'forgejo.namespace', f.namespace);
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
    problems.when(cluster.deliveredBy !== 'bootstrap' || target.deliveredBy !== 'bootstrap', 'forgejo.database',
      () => `Forgejo is a Phase-0 component, so its database '${f.database}' and cluster '${target.cluster}' must be ` +
        'delivered by the bootstrap (deliveredBy: \'bootstrap\'), not by Argo CD.');
    const ownerIsInitdb = target.owner === cluster.initdbOwner;
    problems.when(f.databaseSecret === undefined && (cluster.namespace !== f.namespace || !ownerIsInitdb), 'forgejo.databaseSecret',
      () => `Forgejo cannot use the CNPG-generated '${target.cluster}-app' Secret: ` +
        (cluster.namespace !== f.namespace
          ? `the cluster is in namespace '${cluster.namespace}' and Forgejo in '${f.namespace}'. `
          : `the database owner '${target.owner}' is not the cluster's initdb owner. `) +
        `Set forgejo.databaseSecret to a Secret in '${f.namespace}' with keys username and password.`);
  },
};

const phase0Rules: ConfigRule = {
  name: 'no Phase-0 component is an Argo CD Application',
  check: (config, problems) => {
    const phase0 = phase0Components(config);
    for (const app of keys(config.argocd.applications)) {
      problems.when(phase0.has(app), `argocd.applications.${app}`, () => `'${app}' is a Phase-0 component and must never be an ` +
        'Argo CD Application: Argo CD syncs from the git repository that Forgejo serves, and Forgejo needs CNPG and storage, ' +
        'so managing it from Argo CD re-creates the bootstrap circle. Remove the Application; the bootstrap runbook owns it.');
    }
  },
};

/** The built-in Phase-0 signatures and the config's own (`phase0Signatures`), in that order. */
export function phase0Signatures(config: ResolvedHomelabConfig): readonly Phase0Signature[] {
  return [...PHASE0_SIGNATURES, ...config.phase0Signatures];
}

/** Why a matched source re-creates the circle, and the fix for that kind of match. */
function signatureMessage(app: string, match: SignatureMatch, source: { kind: string; recurse?: boolean }, distPath: string,
  adopter?: string): string {
  const { component, role } = match.signature;
  const dirs = (match.signature.paths ?? []).map((p) => `'${signaturePath(p, distPath)}'`).join(', ');
  const fix = source.kind === 'helm-chart'
    ? `Remove this source; the bootstrap runbook installs '${component}'` + (adopter === undefined ? '.'
      : ` and Application '${adopter}' adopts it (${component}.adoptedBy); to move the adoption here, set ${component}.adoptedBy: '${app}'.`)
    : source.kind === 'git-path' && source.recurse === true && match.what.includes('recurse: true')
      ? `Point the source at a directory outside ${dirs}, or drop recurse: true and list the subdirectories as sources.`
      : `Point the source at a directory outside ${dirs}.`;
  return `application '${app}' deploys the Phase-0 component '${component}' under another name: its ${match.what} ` +
    `matches the signature of '${component}' (${role}). Argo CD syncs from the git repository that Forgejo serves, and ` +
    'Forgejo needs CNPG and storage, so an Application that owns it re-creates the bootstrap circle. ' + fix;
}

const phase0ContentRules: ConfigRule = {
  name: 'no Argo CD Application deploys a Phase-0 component by content (chart, path)',
  check: (config, problems) => {
    const byName = phase0Components(config);
    const signatures = phase0Signatures(config);
    const adopters = phase0Adopters(config);
    for (const [component, app] of adopters) {
      problems.when(!(app in config.argocd.applications), `${component}.adoptedBy`, () => `'${app}' names no Application under ` +
        `argocd.applications. Declare the Application that adopts ${component}, or set ${component}.adoptedBy: null to leave the ` +
        'release to the runbook.');
    }
    for (const app of keys(config.argocd.applications)) {
      // An Application named like a component is reported once, by name.
      if (byName.has(app)) continue;
      const sources = config.argocd.applications[app].sources;
      sources.forEach((source, i) => {
        // One problem per source: the first signature it matches (a recursive parent matches several; one fix serves all).
        const match = signatures.map((s) => matchSignature(source, s, config.git.distPath)).find((m) => m !== undefined);
        // The designated adopter carries the chart on purpose; any other Application with it is a second owner.
        const adopting = match !== undefined && source.kind === 'helm-chart' && adopters.get(match.signature.component) === app;
        problems.when(match !== undefined && !adopting, `argocd.applications.${app}.sources[${i}]`,
          () => signatureMessage(app, match!, source, config.git.distPath, adopters.get(match!.signature.component)));
      });
    }
  },
};

/** The next name of a server-name lineage: `forgejo-db` → `forgejo-db-2`, `forgejo-db-2` → `forgejo-db-3`. */
export function nextServerName(name: string): string {
  const m = /^(.*)-(\d+)$/.exec(name);
  return m ? `${m[1]}-${Number(m[2]) + 1}` : `${name}-2`;
}

const backupRules: ConfigRule = {
  name: 'a restored cluster reads an object store and archives under a new server name; a backup has a target outside the cluster',
  check: (config, problems) => {
    for (const name of keys(config.postgresClusters)) {
      const c = config.postgresClusters[name];
      const path = `postgresClusters.${name}`;
      const restore = c.restoreFrom;
      if (c.deliveredBy === 'bootstrap') {
        // A Phase-0 Cluster is created by the runbook, before Argo CD delivers anything: an object store inside the cluster
        // (e.g. a MinIO tenant that Argo CD delivers) does not exist yet then, and is empty on a rebuilt cluster.
        const stores: [string, { endpointURL: string } | undefined, boolean][] = [
          ['backup.objectStore', c.backup?.objectStore, c.backup?.acceptInClusterOnly === true],
          ['restoreFrom.objectStore', restore?.objectStore, true],
        ];
        for (const [field, store, reportedHereOnly] of stores) {
          const inside = store === undefined ? undefined : inClusterEndpoint(store.endpointURL);
          // A backup store without acceptInClusterOnly is reported by the rule below, with its own fix.
          problems.when(inside !== undefined && reportedHereOnly, `${path}.${field}.endpointURL`,
            () => `cluster '${name}' is created in Phase 0 (deliveredBy: 'bootstrap'), before Argo CD runs, so its object store cannot ` +
              `be inside the cluster (${inside}): nothing there serves it when the runbook creates the Cluster, and on a rebuilt cluster ` +
              `it is empty${field === 'backup.objectStore' ? '; backup.acceptInClusterOnly does not change that' : ''}. Point it at an ` +
              'S3-compatible endpoint outside the cluster (off-site).');
        }
      }
      problems.when(restore !== undefined && restore.objectStore === undefined && c.backup === undefined, `${path}.restoreFrom.objectStore`,
        () => `is required: the cluster has no backup.objectStore to read server '${restore!.serverName}' from. Name the object store that ` +
          'holds it, or add a backup whose objectStore holds it.');
      if (c.backup === undefined) continue;
      const current = c.backup.serverName ?? name;
      problems.when(restore !== undefined && restore.serverName === current, `${path}.backup.serverName`,
        () => `the cluster archives under server name '${current}'${c.backup!.serverName === undefined ? ' (the cluster name, by default)' : ''}, ` +
          'the one restoreFrom reads: the Barman Cloud plugin refuses to archive into a WAL archive that is not empty, so the restored ' +
          `cluster would never archive. Set backup.serverName to a new name, e.g. '${nextServerName(current)}'.`);
      const inside = inClusterEndpoint(c.backup.objectStore.endpointURL);
      problems.when(inside !== undefined && !c.backup.acceptInClusterOnly, `${path}.backup.objectStore.endpointURL`,
        () => `the only backup target of cluster '${name}' is inside the cluster it protects (${inside}): losing the cluster loses its ` +
          'backups too. Point it at an off-site S3-compatible endpoint, or set backup.acceptInClusterOnly: true to keep it on purpose.');
    }
  },
};

const forgejoBackupRules: ConfigRule = {
  name: 'Forgejo\'s dumps go off-site (or in-cluster on purpose), and its restore reads an off-site object store',
  check: (config, problems) => {
    const { backup, restoreFrom } = config.forgejo;
    const inside = backup && inClusterEndpoint(backup.objectStore.endpointURL);
    problems.when(inside !== undefined && !backup!.acceptInClusterOnly, 'forgejo.backup.objectStore.endpointURL',
      () => `the only backup target of Forgejo's repositories is inside the cluster it protects (${inside}): losing the cluster loses ` +
        'its backups too. Point it at an off-site S3-compatible endpoint, or set forgejo.backup.acceptInClusterOnly: true to keep it on purpose.');
    if (restoreFrom === undefined) return;
    const store = restoreFrom.objectStore ?? backup?.objectStore;
    problems.when(store === undefined, 'forgejo.restoreFrom.objectStore', () => 'is required: Forgejo has no backup.objectStore to read ' +
      'its dumps from. Name the object store that holds them, or add forgejo.backup whose objectStore holds them.');
    const restoreInside = store && inClusterEndpoint(store.endpointURL);
    // acceptInClusterOnly does not help here: Forgejo is restored in Phase 0, before anything in the cluster runs.
    problems.when(restoreInside !== undefined, `forgejo.${restoreFrom.objectStore ? 'restoreFrom' : 'backup'}.objectStore.endpointURL`,
      () => `Forgejo restores from an object store inside the cluster (${restoreInside}), but it is restored in Phase 0, before any ` +
        'in-cluster object store can run, so the restore would wait forever. Point forgejo.restoreFrom.objectStore at the off-site ' +
        'endpoint that holds the dumps.');
  },
};

/** The rules of lib/config, in the order their problems are reported. */
export const CONFIG_RULES: readonly ConfigRule[] = [
  clusterRules, databaseRules, forgejoRules, phase0Rules, phase0ContentRules, backupRules, forgejoBackupRules,
  appsRules,
  rolloutsRules,
  e2eRules,
  kyvernoRules,
  imageUpdaterRules,
  buildRules,
];

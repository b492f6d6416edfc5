import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { ConfigError } from '../../lib/shared/errors';
import { readTree, writeTree } from '../../lib/output/output-tree';
import { synthesizeToDisk } from '../../lib/cli/synth';

/**
 * Mistakes a new user makes in `homelab.config.ts`, which `npm run synth` does not type-check: each must be
 * reported at its exact config path, with a message that says what is allowed, and never echo a secret.
 */
interface HostileCase {
  readonly name: string;
  /** The config as the user wrote it (any value: the run-time check is the only one). */
  readonly config: () => unknown;
  /** The config path the problem is reported at. */
  readonly path: string;
  /** A fragment of its message. */
  readonly message: string;
  /** A secret in the input that no message may contain. */
  readonly secret?: string;
}

type Mutable = Record<string, any>;
/** A deep copy of the reference homelab, edited by `edit`. */
function edited(edit: (c: Mutable) => void): () => unknown {
  return () => {
    const c = JSON.parse(JSON.stringify(REFERENCE_HOMELAB)) as Mutable;
    edit(c);
    return c;
  };
}

/** An Application of one pinned chart from `repoURL`. */
const helmApp = (repoURL: string, chart: string) => ({ syncWave: 8, namespace: 'apps', sources: [{ kind: 'helm-chart', repoURL, chart, version: '1.0.0' }] });
/** An Application of one git path. */
const gitApp = (p: string, extra: object = {}) => ({ syncWave: 8, namespace: 'apps', sources: [{ kind: 'git-path', path: p, ...extra }] });

const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(4)}`;

const CASES: HostileCase[] = [
  // Misspelled keys, at several depths.
  { name: 'a misspelled top-level key', config: edited((c) => { c.postgresCluster = c.postgresClusters; }),
    path: 'postgresCluster', message: "unknown key; did you mean 'postgresClusters'?" },
  { name: 'a key in the wrong case on a cluster', config: edited((c) => { c.postgresClusters['forgejo-db'].storagesize = '20Gi'; }),
    path: 'postgresClusters.forgejo-db.storagesize', message: "unknown key; did you mean 'storageSize'?" },
  { name: 'a misspelled namespace option', config: edited((c) => { c.namespaces.ddb = { podSecurty: 'baseline' }; }),
    path: 'namespaces.ddb.podSecurty', message: "did you mean 'podSecurity'?" },
  { name: 'a misspelled Forgejo option', config: edited((c) => { c.forgejo.namepsace = 'cicd'; }),
    path: 'forgejo.namepsace', message: "did you mean 'namespace'?" },
  { name: 'a misspelled git option', config: edited((c) => { c.git.targetRevison = 'main'; }),
    path: 'git.targetRevison', message: "did you mean 'targetRevision'?" },
  { name: 'a shortened Application option', config: edited((c) => { c.argocd.applications.duckdns.wave = 8; }),
    path: 'argocd.applications.duckdns.wave', message: "did you mean 'syncWave'?" },
  { name: 'a misspelled Helm source option', config: edited((c) => { c.argocd.applications.cilium.sources[0].valuesFiles = ['x.yaml']; }),
    path: 'argocd.applications.cilium.sources[0].valuesFiles', message: "did you mean 'valueFiles'?" },
  { name: 'a misspelled Temporal option', config: edited((c) => { c.argocd.temporal.numHistoryShard = 1024; }),
    path: 'argocd.temporal.numHistoryShard', message: "did you mean 'numHistoryShards'?" },
  { name: 'an unknown key with no near match', config: edited((c) => { c.databases.authentik.replicas = 2; }),
    path: 'databases.authentik.replicas', message: "unknown key; allowed keys are 'cluster', 'deliveredBy', 'owner', 'reclaimPolicy'" },

  // Enums: exact values only.
  { name: 'a reclaim policy in the wrong case', config: edited((c) => { c.databases.authentik.reclaimPolicy = 'Retain'; }),
    path: 'databases.authentik.reclaimPolicy', message: "'Retain' is not allowed; use one of 'retain', 'delete'. Values are case-sensitive: write 'retain'." },
  { name: 'a delivery in the wrong case', config: edited((c) => { c.databases.temporal.deliveredBy = 'ArgoCD'; }),
    path: 'databases.temporal.deliveredBy', message: "Values are case-sensitive: write 'argocd'." },
  { name: 'a Pod Security level in the wrong case', config: edited((c) => { c.namespaces.cicd.podSecurity = 'Restricted'; }),
    path: 'namespaces.cicd.podSecurity', message: "'Restricted' is not a Pod Security level; use one of privileged, baseline, restricted." },
  { name: 'a git source in the wrong case', config: edited((c) => { c.git.source = 'GitHub'; }),
    path: 'git.source', message: "'GitHub' is not a git source; use 'github' or 'forgejo'." },
  { name: 'a sync option in the wrong case', config: edited((c) => { c.argocd.applications['cert-manager'].syncOptions = ['createNamespace']; }),
    path: 'argocd.applications.cert-manager.syncOptions[0]', message: "write 'CreateNamespace'" },
  { name: 'a cluster-scoped kind in the wrong case', config: edited((c) => { c.argocd.applications.coredns.clusterResources = ['clusterrole']; }),
    path: 'argocd.applications.coredns.clusterResources[0]', message: "write 'ClusterRole'" },
  { name: 'an unknown source kind', config: edited((c) => { c.argocd.applications.cilium.sources[0].kind = 'helm'; }),
    path: 'argocd.applications.cilium.sources[0].kind', message: "'helm' is not a valid kind; use one of 'git-path', 'helm-chart', 'plugin'." },

  // Quantities.
  { name: 'a zero storage size', config: edited((c) => { c.postgresClusters['forgejo-db'].storageSize = '0Gi'; }),
    path: 'postgresClusters.forgejo-db.storageSize', message: "'0Gi' must be greater than zero; write it like '10Gi'." },
  { name: 'a negative storage size', config: edited((c) => { c.forgejo.storageSize = '-20Gi'; }),
    path: 'forgejo.storageSize', message: "'-20Gi' must be greater than zero" },
  { name: 'a storage size with a space and GB', config: edited((c) => { c.postgresClusters['ddb-cluster'].storageSize = '20 GB'; }),
    path: 'postgresClusters.ddb-cluster.storageSize', message: "'20 GB' is not a Kubernetes quantity; write it like '10Gi'." },
  { name: 'a zero memory request', config: edited((c) => { c.postgresClusters['forgejo-db'].memoryRequest = '0'; }),
    path: 'postgresClusters.forgejo-db.memoryRequest', message: "'0' must be greater than zero" },
  { name: 'an unparseable CPU request', config: edited((c) => { c.postgresClusters['forgejo-db'].cpuRequest = 'half a core'; }),
    path: 'postgresClusters.forgejo-db.cpuRequest', message: "'half a core' is not a Kubernetes quantity; write it like '100m'." },
  { name: 'a memory request above its limit', config: edited((c) => { Object.assign(c.postgresClusters['forgejo-db'], { memoryRequest: '2Gi', memoryLimit: '1Gi' }); }),
    path: 'postgresClusters.forgejo-db.memoryRequest', message: "memory request '2Gi' is above its limit '1Gi'" },
  { name: 'zero instances', config: edited((c) => { c.postgresClusters['ddb-cluster'].instances = 0; }),
    path: 'postgresClusters.ddb-cluster.instances', message: 'must be an integer of at least 1, got 0.' },
  { name: 'a fractional instance count', config: edited((c) => { c.postgresClusters['ddb-cluster'].instances = 2.5; }),
    path: 'postgresClusters.ddb-cluster.instances', message: 'must be an integer of at least 1, got 2.5.' },
  { name: 'a zero mirror interval', config: edited((c) => { c.argocd.forgejoMirror.mirrorInterval = '0s'; }),
    path: 'argocd.forgejoMirror.mirrorInterval', message: "'0s' is not a positive Go duration" },

  // Names where they land.
  { name: 'a namespace reference with an underscore', config: edited((c) => { c.postgresClusters['forgejo-db'].namespace = 'ci_cd'; }),
    path: 'postgresClusters.forgejo-db.namespace', message: "'ci_cd' is not a valid namespace name" },
  { name: 'a Forgejo namespace ending in a dot', config: edited((c) => { c.forgejo.namespace = 'cicd.'; }),
    path: 'forgejo.namespace', message: "'cicd.' is not a valid namespace name" },
  { name: 'a Secret name in upper case', config: edited((c) => { c.forgejo.databaseSecret = 'Forgejo_DB'; }),
    path: 'forgejo.databaseSecret', message: "'Forgejo_DB' is not a valid Secret name" },
  { name: 'a Secret name with a space', config: edited((c) => { c.argocd.forgejoMirror.githubTokenSecret = 'github token'; }),
    path: 'argocd.forgejoMirror.githubTokenSecret', message: "'github token' is not a valid Secret name" },
  { name: 'a Forgejo owner with a slash (a URL path segment)', config: edited((c) => { c.forgejo.repoOwner = 'me/you'; }),
    path: 'forgejo.repoOwner', message: "'me/you' is not a valid Forgejo user or organisation name" },
  // Forgejo exposure and administrator.
  { name: 'an exposure type in the wrong case', config: edited((c) => { c.forgejo.expose = { type: 'loadbalancer' }; }),
    path: 'forgejo.expose.type', message: "'loadbalancer' is not a valid type; use one of" },
  { name: 'a NodePort exposure', config: edited((c) => { c.forgejo.expose = { type: 'NodePort' }; }),
    path: 'forgejo.expose.type', message: "'NodePort' is not a valid type; use one of" },
  { name: 'a LoadBalancer address with a port', config: edited((c) => { c.forgejo.expose = { type: 'LoadBalancer', address: '192.168.1.165:3000' }; }),
    path: 'forgejo.expose.address', message: "'192.168.1.165:3000' is not an IPv4 or IPv6 address; write it like '192.168.1.165'." },
  { name: 'a LoadBalancer address out of range', config: edited((c) => { c.forgejo.expose = { type: 'LoadBalancer', address: '192.168.1.256' }; }),
    path: 'forgejo.expose.address', message: "'192.168.1.256' is not an IPv4 or IPv6 address" },
  { name: 'an Ingress host given as a URL', config: edited((c) => { c.forgejo.expose = { type: 'Ingress', host: 'https://git.home.arpa' }; }),
    path: 'forgejo.expose.host', message: "'https://git.home.arpa' is not a host name; write it like 'git.home.arpa' (lower case, no scheme, port or path)." },
  { name: 'an Ingress without a host', config: edited((c) => { c.forgejo.expose = { type: 'Ingress' }; }),
    path: 'forgejo.expose.host', message: 'is required; set it to a string.' },
  { name: 'an Ingress key on a LoadBalancer', config: edited((c) => { c.forgejo.expose = { type: 'LoadBalancer', host: 'git.home.arpa' }; }),
    path: 'forgejo.expose.host', message: 'unknown key' },
  { name: 'an IngressClass in upper case', config: edited((c) => { c.forgejo.expose = { type: 'Ingress', host: 'git.home.arpa', className: 'NGINX' }; }),
    path: 'forgejo.expose.className', message: "'NGINX' is not a valid IngressClass name" },
  { name: 'the reserved admin user name', config: edited((c) => { c.forgejo.admin = { username: 'admin' }; }),
    path: 'forgejo.admin.username', message: "'admin' is reserved by Forgejo; use another name, e.g. 'forgejo-admin'." },
  { name: 'an admin user name with a space', config: edited((c) => { c.forgejo.admin = { username: 'git admin' }; }),
    path: 'forgejo.admin.username', message: "'git admin' is not a valid Forgejo user name" },
  { name: 'an admin e-mail without @', config: edited((c) => { c.forgejo.admin = { email: 'root' }; }),
    path: 'forgejo.admin.email', message: "'root' is not an e-mail address; write it like 'admin@home.arpa'." },
  { name: 'an admin password Secret in upper case', config: edited((c) => { c.forgejo.admin = { passwordSecret: 'Forgejo-Admin' }; }),
    path: 'forgejo.admin.passwordSecret', message: "'Forgejo-Admin' is not a valid Secret name" },
  { name: 'a password in the admin block', config: edited((c) => { c.forgejo.admin = { password: 'hunter2-secret' }; }),
    path: 'forgejo.admin.password', message: 'unknown key', secret: 'hunter2-secret' },
  { name: 'a cluster name too long for CNPG\'s suffixes', config: edited((c) => { c.postgresClusters['c'.repeat(51)] = { namespace: 'ddb' }; }),
    path: `postgresClusters.${'c'.repeat(51)}`, message: 'must be at most 50 characters, got 51' },

  // Git refs.
  { name: 'a revision with ..', config: edited((c) => { c.git.targetRevision = 'feature..x'; }),
    path: 'git.targetRevision', message: "'feature..x' is not a valid git branch or tag: it must not contain '..'" },
  { name: 'a revision with a space', config: edited((c) => { c.git.targetRevision = 'my branch'; }),
    path: 'git.targetRevision', message: 'must not contain spaces' },
  { name: 'a revision ending in .lock', config: edited((c) => { c.git.targetRevision = 'release.lock'; }),
    path: 'git.targetRevision', message: "must not have a path component that ends with '.lock'" },
  { name: 'a revision ending in /', config: edited((c) => { c.git.targetRevision = 'main/'; }),
    path: 'git.targetRevision', message: "must not start or end with '/'" },
  { name: 'a revision with a caret', config: edited((c) => { c.git.targetRevision = 'HEAD^'; }),
    path: 'git.targetRevision', message: 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\' },

  // URLs: SSH where SSH is required, never credentials.
  { name: 'an https seed URL', config: edited((c) => { c.git.githubSeedUrl = 'https://github.com/me/homelab.git'; }),
    path: 'git.githubSeedUrl', message: "'https://github.com/me/homelab.git' is not a GitHub SSH URL" },
  { name: 'a seed URL with a password', config: edited((c) => { c.git.githubSeedUrl = 'https://me:hunter2@github.com/me/homelab.git'; }),
    path: 'git.githubSeedUrl', message: 'contains credentials in a https:// URL', secret: 'hunter2' },
  { name: 'a chart repository with credentials', config: edited((c) => { c.argocd.applications.cilium.sources[0].repoURL = 'https://admin:s3cr3t-pw@charts.example.com'; }),
    path: 'argocd.applications.cilium.sources[0].repoURL', message: 'the value is not shown', secret: 's3cr3t-pw' },
  { name: 'a token as the URL user', config: edited((c) => { c.git.githubSeedUrl = `https://${TOKEN}@github.com/me/homelab.git`; }),
    path: 'git.githubSeedUrl', message: 'contains a GitHub token (ghp_A1b2...)', secret: TOKEN },
  { name: 'an scp-like URL with a password', config: edited((c) => { c.git.githubSeedUrl = 'git:tok3n-pw@github.com:me/homelab.git'; }),
    path: 'git.githubSeedUrl', message: 'contains a password in an scp-like git URL', secret: 'tok3n-pw' },

  // PostgreSQL names and roles CNPG reserves.
  { name: 'the streaming_replica role', config: edited((c) => { c.postgresClusters['ddb-cluster'].managedRoles = ['authentik', 'temporal', 'streaming_replica']; }),
    path: 'postgresClusters.ddb-cluster.managedRoles[2]', message: "'streaming_replica' is a role CNPG creates and manages itself" },
  { name: 'the postgres superuser as initdb owner', config: edited((c) => { c.postgresClusters['forgejo-db'].initdbOwner = 'postgres'; }),
    path: 'postgresClusters.forgejo-db.initdbOwner', message: "'postgres' is a role CNPG creates and manages itself" },
  { name: 'a pg_ role', config: edited((c) => { c.postgresClusters['ddb-cluster'].managedRoles = ['authentik', 'temporal', 'pg_monitor']; }),
    path: 'postgresClusters.ddb-cluster.managedRoles[2]', message: "starts with 'pg_', which PostgreSQL reserves" },
  { name: 'a role in upper case', config: edited((c) => { c.postgresClusters['ddb-cluster'].managedRoles = ['Authentik', 'temporal']; }),
    path: 'postgresClusters.ddb-cluster.managedRoles[0]', message: "'Authentik' is not a valid PostgreSQL role name" },
  { name: 'a database name with a dash', config: edited((c) => { c.databases['temporal-visibility'] = c.databases.temporal_visibility; }),
    path: 'databases.temporal-visibility', message: "'temporal-visibility' is not a valid PostgreSQL database name" },

  // Phase-0 components under another Application name: recognised by chart, path or a signature of the config.
  { name: 'the Forgejo chart under another name (OCI)', config: edited((c) => { c.argocd.applications['git-server'] = helmApp('oci://code.forgejo.org/forgejo-helm', 'forgejo'); }),
    path: 'argocd.applications.git-server.sources[0]',
    message: "application 'git-server' deploys the Phase-0 component 'forgejo' under another name: its chart 'forgejo' from 'oci://code.forgejo.org/forgejo-helm' matches the signature of 'forgejo'" },
  { name: 'the Forgejo chart with its name in the OCI URL', config: edited((c) => { c.argocd.applications.git = helmApp('oci://code.forgejo.org/forgejo-helm/forgejo', 'forgejo'); }),
    path: 'argocd.applications.git.sources[0]', message: "re-creates the bootstrap circle. Remove this source; the bootstrap runbook installs 'forgejo'." },
  { name: 'the CNPG operator chart from its https repository', config: edited((c) => { c.argocd.applications.postgres = helmApp('https://cloudnative-pg.github.io/charts/', 'cloudnative-pg'); }),
    path: 'argocd.applications.postgres.sources[0]', message: "deploys the Phase-0 component 'cnpg-operator' under another name" },
  { name: 'the CNPG operator chart from its OCI registry', config: edited((c) => { c.argocd.applications.postgres = helmApp('oci://ghcr.io/cloudnative-pg/charts', 'cloudnative-pg'); }),
    path: 'argocd.applications.postgres.sources[0]', message: "matches the signature of 'cnpg-operator' (it runs forgejo-db, the database Forgejo needs)" },
  { name: 'the Longhorn chart, repository in upper case', config: edited((c) => { c.argocd.applications.storage = helmApp('https://Charts.Longhorn.io', 'longhorn'); }),
    path: 'argocd.applications.storage.sources[0]', message: "deploys the Phase-0 component 'longhorn' under another name" },
  { name: 'the Argo CD chart', config: edited((c) => { c.argocd.applications.gitops = helmApp('https://argoproj.github.io/argo-helm', 'argo-cd'); }),
    path: 'argocd.applications.gitops.sources[0]', message: "deploys the Phase-0 component 'argocd' under another name" },
  { name: 'the bootstrap tree as a git path', config: edited((c) => { c.argocd.applications.phase0 = gitApp('k8s/generated/bootstrap'); }),
    path: 'argocd.applications.phase0.sources[0]',
    message: "its path 'k8s/generated/bootstrap' matches the signature of 'bootstrap' (it is the runbook's own input" },
  { name: 'the Argo CD install kustomization inside the bootstrap tree', config: edited((c) => { c.argocd.applications.argocd = gitApp('k8s/generated/bootstrap/05-argocd-install'); }),
    path: 'argocd.applications.argocd.sources[0]',
    message: "its path 'k8s/generated/bootstrap/05-argocd-install' (inside 'k8s/generated/bootstrap') matches the signature of 'bootstrap'" },
  { name: 'the dist path read recursively', config: edited((c) => { c.argocd.applications.everything = gitApp('k8s/generated', { recurse: true }); }),
    path: 'argocd.applications.everything.sources[0]',
    message: "its path 'k8s/generated' with recurse: true (which reads 'k8s/generated/bootstrap') matches the signature of 'bootstrap'" },
  { name: 'the repository root read recursively', config: edited((c) => { c.argocd.applications.everything = gitApp('.', { recurse: true }); }),
    path: 'argocd.applications.everything.sources[0]', message: 'or drop recurse: true and list the subdirectories as sources.' },
  { name: 'a plugin run inside the bootstrap tree', config: edited((c) => { c.argocd.applications.decrypt = { syncWave: 8, namespace: 'apps', sources: [{ kind: 'plugin', path: 'k8s/generated/bootstrap', pluginName: 'sops' }] }; }),
    path: 'argocd.applications.decrypt.sources[0]', message: "matches the signature of 'bootstrap'" },
  { name: 'the root app-of-apps folder as a git path', config: edited((c) => { c.argocd.applications.roots = gitApp('k8s/generated/argocd/root'); }),
    path: 'argocd.applications.roots.sources[0]', message: "its path 'k8s/generated/argocd/root' matches the signature of 'argocd'" },
  { name: 'the bootstrap tree under another dist path', config: edited((c) => { c.git.distPath = 'deploy/out'; c.argocd.applications.phase0 = gitApp('deploy/out/bootstrap'); }),
    path: 'argocd.applications.phase0.sources[0]', message: "Point the source at a directory outside 'deploy/out/bootstrap'." },
  { name: 'a mirrored Forgejo chart the config declares', config: edited((c) => {
    c.phase0Signatures = [{ component: 'forgejo', role: 'it serves the git repository Argo CD syncs from', charts: [{ chart: 'forgejo', repos: ['oci://registry.home.arpa/mirror'] }] }];
    c.argocd.applications.git = helmApp('oci://registry.home.arpa/mirror', 'forgejo');
  }), path: 'argocd.applications.git.sources[0]', message: "its chart 'forgejo' from 'oci://registry.home.arpa/mirror' matches the signature of 'forgejo'" },
  { name: 'a signature without a role', config: edited((c) => { c.phase0Signatures = [{ component: 'gitea', charts: [{ chart: 'gitea', repos: ['https://dl.gitea.com/charts'] }] }]; }),
    path: 'phase0Signatures[0].role', message: 'is required; set it to a string.' },

  // Wrong types.
  { name: 'an instance count as a string', config: edited((c) => { c.postgresClusters['forgejo-db'].instances = '3'; }),
    path: 'postgresClusters.forgejo-db.instances', message: "must be a number, got the string '3'." },
  { name: 'namespaces as a list', config: edited((c) => { c.namespaces = ['cicd', 'ddb']; }),
    path: 'namespaces', message: 'must be an object, got an array.' },
  { name: 'a boolean written as a word', config: edited((c) => { c.argocd.applications.duckdns.automatedSync = 'yes'; }),
    path: 'argocd.applications.duckdns.automatedSync', message: "must be true or false, got the string 'yes'." },
  { name: 'a wave as a string', config: edited((c) => { c.argocd.applications.duckdns.syncWave = '8'; }),
    path: 'argocd.applications.duckdns.syncWave', message: 'syncWave must be an integer from 0 to 8, got "8".' },
  { name: 'a missing database owner', config: edited((c) => { delete c.databases.authentik.owner; }),
    path: 'databases.authentik.owner', message: 'is required; set it to a string.' },
  { name: 'a missing git section', config: edited((c) => { delete c.git; }),
    path: 'git', message: 'is required; set it to an object.' },
  { name: 'a null config', config: () => null, path: '(config)', message: 'the config must be an object, got null.' },
  { name: 'a number as config', config: () => 42, path: '(config)', message: 'the config must be an object, got the number 42.' },
  { name: 'an array as config', config: () => [REFERENCE_HOMELAB], path: '(config)', message: 'the config must be an object, got an array.' },
];

/** The ConfigError that synthesizing `config` throws. */
function rejection(config: unknown): ConfigError {
  try {
    synthesizeHomelab(config as HomelabConfig);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('the config was accepted');
}

describe('hostile config input', () => {
  test('the table holds at least 30 mistakes', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  test.each(CASES)('rejects $name at its path', ({ config, path: at, message, secret }) => {
    const error = rejection(config());
    const found = error.problems.filter((p) => p.path === at);
    expect(found.map((p) => p.message).join('\n')).toContain(message);
    expect(error.message).toContain(`  - ${at}: `);
    if (secret !== undefined) {
      expect(error.message).not.toContain(secret);
      for (const p of error.problems) expect(p.message).not.toContain(secret);
    }
  });

  test('reports every problem of a config at once, schema problems sorted by path', () => {
    const error = rejection(edited((c) => {
      c.git.targetRevision = 'a..b';
      c.forgejo.storageSize = '0';
      c.databases.authentik.reclaimPolicy = 'Delete';
    })());
    expect(error.problems.map((p) => p.path)).toEqual(['databases.authentik.reclaimPolicy', 'forgejo.storageSize', 'git.targetRevision']);
  });

  test('ordinary Applications that resemble Phase-0 components are not flagged', () => {
    // GIVEN charts and paths next to the Phase-0 ones, but not them
    const config = edited((c) => {
      Object.assign(c.argocd.applications, {
        // CNPG's Cluster chart lives in the operator's repositories; it is a database, not the operator.
        'pg-cluster': helmApp('oci://ghcr.io/cloudnative-pg/charts', 'cluster'),
        // The Forgejo runner is an Argo CD Application in the reference catalog; its chart is not Forgejo's.
        'runner-chart': helmApp('oci://code.forgejo.org/forgejo-helm', 'forgejo-runner'),
        // Hand-written bootstrap values (k8s/bootstrap), a sibling of the dist path, the dist path without recursion.
        'bootstrap-values': gitApp('k8s/bootstrap/extra'),
        'generated-extra': gitApp('k8s/generated-extra', { recurse: true }),
        'dist-top': gitApp('k8s/generated'),
        'argocd-config': gitApp('k8s/infra/argocd', { recurse: true }),
      });
    })();
    // WHEN
    const result = synthesizeHomelab(config as HomelabConfig);
    // THEN
    expect(Object.keys(result.config.argocd.applications)).toEqual(expect.arrayContaining(['pg-cluster', 'runner-chart', 'dist-top']));
  });

  test('parseHomelabConfig returns the config with every default applied', () => {
    const resolved = parseHomelabConfig(REFERENCE_HOMELAB);
    expect(resolved.forgejo.namespace).toBe('cicd');
    expect(resolved.git.deployKeyFile).toBe('~/.ssh/argocd_seed');
    expect(resolved.postgresClusters['ddb-cluster'].initdbOwner).toBe('app');
    expect(resolved.namespaces.cicd.podSecurityWarn).toBe('restricted');
    expect(resolved.argocd.forgejoMirror.mirrorInterval).toBe('10m0s');
    expect(resolved.argocd.applications.duckdns.dependsOn).toEqual([]);
  });
});

describe('a rejected config leaves the previous output as it was', () => {
  const DIST = readTree(path.resolve(__dirname, '../../dist'));
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-input-'));
    writeTree(DIST, path.join(tmp, 'dist'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test.each(CASES.filter((c) => c.secret !== undefined || c.path === 'postgresClusters.forgejo-db.storagesize'))('$name', ({ config, secret }) => {
    // GIVEN the previous output
    const out = path.join(tmp, 'dist');
    // WHEN
    const result = synthesizeToDisk(config() as HomelabConfig, { outdir: out });
    // THEN
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`Nothing was written; ${out}/ is unchanged.`);
    if (secret !== undefined) expect(result.stderr).not.toContain(secret);
    expect(readTree(out)).toEqual(DIST);
    expect(fs.readdirSync(tmp)).toEqual(['dist']);
  });
});

import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { validateConfig } from '../../lib/config/validate-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { ConfigError } from '../../lib/shared/errors';

/** The problems of `config`, as `path: message` lines. */
function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

/** The reference homelab with other databases; without Temporal, whose databases they replace. */
function withDatabases(databases: HomelabConfig['databases']): HomelabConfig {
  return { ...REFERENCE_HOMELAB, databases, argocd: { ...REFERENCE_HOMELAB.argocd, temporal: undefined } };
}

describe('validateConfig', () => {
  test('the reference homelab is valid', () => {
    expect(problems(REFERENCE_HOMELAB)).toEqual([]);
  });

  test('fails for a Database naming an unknown cluster', () => {
    expect(problems(withDatabases({ temporal_visibility: { cluster: 'ddb', owner: 'app' } }))).toEqual([
      'databases.temporal_visibility.cluster: unknown postgres cluster \'ddb\'. ' +
        'Declare it under \'postgresClusters\' or use one of: ddb-cluster, forgejo-db.',
    ]);
  });

  test('fails for two databases with the same PostgreSQL name on one cluster', () => {
    expect(problems(withDatabases({ forgejo: { cluster: 'forgejo-db', owner: 'forgejo' } }))).toEqual([
      'databases.forgejo: cluster \'forgejo-db\' already has a database \'forgejo\' (its initdbDatabase); ' +
        'two databases with one PostgreSQL name on one cluster would fight. Remove databases.forgejo.',
    ]);
  });

  test('fails for two databases whose Kubernetes names collide', () => {
    const config = withDatabases({
      _temporal: { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' },
      temporal: { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' },
    });
    expect(problems(config)).toEqual([
      'databases.temporal: its Kubernetes name \'temporal\' in namespace \'ddb\' is also the name of databases._temporal; rename one of them.',
    ]);
  });

  test('fails for an invalid database name and a reserved one', () => {
    const config = withDatabases({
      'Temporal-Visibility': { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' },
      template1: { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' },
    });
    expect(problems(config)).toEqual([
      'databases.Temporal-Visibility: \'Temporal-Visibility\' is not a valid PostgreSQL database name: ' +
        'must consist of lower case letters, digits and \'_\', and start with a letter or \'_\'.',
      'databases.template1: \'template1\' is reserved by PostgreSQL and must not be managed by CNPG; choose another name.',
    ]);
  });

  test('fails for an invalid Kubernetes name', () => {
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, namespaces: { ...REFERENCE_HOMELAB.namespaces, 'CI_CD': {} } };
    expect(problems(config)).toEqual([
      'namespaces.CI_CD: \'CI_CD\' is not a valid namespace name: ' +
        'must consist of lower case letters, digits and \'-\', and start and end with a letter or digit.',
    ]);
  });

  test('fails for an owner that is not a role of the cluster, and for a missing owner', () => {
    const config = withDatabases({
      authentik: { cluster: 'ddb-cluster', owner: 'authentik_owner', deliveredBy: 'argocd' },
      temporal: { cluster: 'ddb-cluster', owner: '', deliveredBy: 'argocd' },
    });
    expect(problems(config)).toEqual([
      'databases.authentik.owner: role \'authentik_owner\' does not exist on cluster \'ddb-cluster\' ' +
        '(roles: app, authentik, temporal); CNPG never creates a database owner. Add it to postgresClusters.ddb-cluster.managedRoles.',
      'databases.temporal.owner: a database needs an owner role; set it to \'app\' (the cluster\'s initdb owner) or to one of its managedRoles.',
    ]);
  });

  test('fails for a Phase-0 database on a cluster Argo CD delivers', () => {
    expect(problems(withDatabases({ temporal: { cluster: 'ddb-cluster', owner: 'temporal' } }))).toEqual([
      'databases.temporal.deliveredBy: the database is delivered in Phase 0 but its cluster \'ddb-cluster\' is delivered by ' +
        'Argo CD, so it would be applied before its cluster exists. Set deliveredBy: \'argocd\' or move the cluster to Phase 0.',
    ]);
  });

  test('fails for a Phase-0 component declared as an Argo CD app', () => {
    const config: HomelabConfig = {
      ...REFERENCE_HOMELAB,
      argocd: { ...REFERENCE_HOMELAB.argocd, applications: { ...REFERENCE_HOMELAB.argocd.applications, forgejo: { syncWave: 3, namespace: 'cicd', sources: [{ kind: 'git-path', path: 'k8s/infra/forgejo' }] } } },
    };
    expect(problems(config)).toEqual([
      'argocd.applications.forgejo: \'forgejo\' is a Phase-0 component and must never be an Argo CD Application: ' +
        'Argo CD syncs from the git repository that Forgejo serves, and Forgejo needs CNPG and storage, so managing it ' +
        'from Argo CD re-creates the bootstrap circle. Remove the Application; the bootstrap runbook owns it.',
    ]);
  });

  test('fails when Forgejo cannot use the CNPG app secret', () => {
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, forgejo: { namespace: 'argocd', database: 'forgejo' } };
    expect(problems(config)).toEqual([
      'forgejo.databaseSecret: Forgejo cannot use the CNPG-generated \'forgejo-db-app\' Secret: the cluster is in namespace ' +
        '\'cicd\' and Forgejo in \'argocd\'. Set forgejo.databaseSecret to a Secret in \'argocd\' with keys username and password.',
    ]);
  });

  test('fails for an undeclared namespace, an unknown Forgejo database and a bad seed URL, all together', () => {
    const config: HomelabConfig = {
      ...REFERENCE_HOMELAB,
      forgejo: { namespace: 'git', database: 'gitea' },
      git: { ...REFERENCE_HOMELAB.git, githubSeedUrl: 'https://github.com/me/homelab' },
    };
    const error = (() => {
      try {
        validateConfig(config).check();
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe([
      // The schema's problems (sorted by path) come first, then the rule table's, in table order.
      'The homelab config has 3 problems:',
      '  - git.githubSeedUrl: \'https://github.com/me/homelab\' is not a GitHub SSH URL; write it like \'git@github.com:owner/homelab.git\' (the deploy key is an SSH key).',
      '  - forgejo.namespace: namespace \'git\' is not declared. Add it under \'namespaces\' (declared: argocd, cicd, cnpg-system, ddb).',
      '  - forgejo.database: no database \'gitea\' is declared: add it under \'databases\' or set it to the initdbDatabase of a cluster under \'postgresClusters\'.',
    ].join('\n'));
  });

  test('fails for a dist path that leaves the repository', () => {
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, distPath: '../elsewhere' } };
    expect(problems(config)).toEqual([
      'git.distPath: \'../elsewhere\' must be a relative path inside the homelab repository, without \'..\' or a trailing \'/\', e.g. \'k8s/generated\'.',
    ]);
  });

  test('cluster is optional; its fields pin the cluster the runbook may change', () => {
    expect(problems(REFERENCE_HOMELAB)).toEqual([]);
    const config: HomelabConfig = {
      ...REFERENCE_HOMELAB,
      cluster: { context: 'admin@homelab', apiServer: 'https://10.0.0.10:6443', kubeSystemUid: '0f1e2d3c-4b5a-4697-8877-665544332211' },
    };
    expect(problems(config)).toEqual([]);
    expect(parseHomelabConfig(config).cluster).toEqual(config.cluster);
    expect(parseHomelabConfig(REFERENCE_HOMELAB).cluster).toEqual({});
  });

  test('fails for a cluster context with spaces, an API server that is no https URL or carries credentials, and a malformed UID', () => {
    const config = (cluster: HomelabConfig['cluster']): HomelabConfig => ({ ...REFERENCE_HOMELAB, cluster });
    expect(problems(config({ context: 'my lab', apiServer: '10.0.0.10:6443', kubeSystemUid: 'ABC' }))).toEqual([
      'cluster.apiServer: \'10.0.0.10:6443\' is not an API server URL; write it as the kubeconfig does, e.g. \'https://10.0.0.10:6443\'.',
      'cluster.context: \'my lab\' is not a kube context name: it must be non-empty, without spaces, e.g. \'admin@homelab\'.',
      'cluster.kubeSystemUid: \'ABC\' is not a Kubernetes UID; copy it from `kubectl get namespace kube-system -o jsonpath=\'{.metadata.uid}\'`, '
        + 'e.g. \'0f1e2d3c-4b5a-4697-8877-665544332211\'.',
    ]);
    const credentials = problems(config({ apiServer: 'https://admin:hunter2@10.0.0.10:6443' }));
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatch(/^cluster.apiServer: contains credentials in a https:\/\/ URL \(the part before '@'\); the value is not shown\./);
    expect(credentials[0]).not.toContain('hunter2');
    expect(problems({ ...REFERENCE_HOMELAB, cluster: { contxt: 'x' } as never })[0]).toMatch(/^cluster.contxt: unknown key; did you mean 'context'\?/);
  });
});

describe('forgejo.expose and forgejo.admin', () => {
  const parse = (forgejo: object) =>
    parseHomelabConfig({ ...REFERENCE_HOMELAB, forgejo: { ...REFERENCE_HOMELAB.forgejo, ...forgejo } } as HomelabConfig);

  test('default to a LoadBalancer without a pinned address and the forgejo-admin user', () => {
    const { forgejo } = parse({});
    expect(forgejo.expose).toEqual({ type: 'LoadBalancer' });
    expect(forgejo.admin).toEqual({ username: 'forgejo-admin', email: 'forgejo-admin@localhost', passwordSecret: 'forgejo-admin' });
  });

  test.each([
    [{ type: 'LoadBalancer', address: '192.168.1.165' }],
    [{ type: 'LoadBalancer', address: 'fd00::165' }],
    [{ type: 'Ingress', host: 'git.home.arpa' }],
    [{ type: 'Ingress', host: 'git.home.arpa', className: 'traefik' }],
    [{ type: 'ClusterIP' }],
  ])('accepts %j', (expose) => {
    expect(parse({ expose }).forgejo.expose).toEqual(expose);
  });

  test('keeps the admin fields given', () => {
    const admin = { username: 'root-user', email: 'root@home.arpa', passwordSecret: 'fj-admin' };
    expect(parse({ admin }).forgejo.admin).toEqual(admin);
  });
});

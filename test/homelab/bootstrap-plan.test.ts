import { App } from 'cdk8s';
import { BootstrapPlan } from '../../lib/homelab/bootstrap-plan';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import backupExample from '../../examples/backup.config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { planSteps } from '../../lib/output/render-steps';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

function plan(): BootstrapPlan {
  return new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', { config: parseHomelabConfig(REFERENCE_HOMELAB), repoUrl: () => 'git@github.com:o/r.git' });
}

describe('BootstrapPlan wiring', () => {
  test('each step applies what its component requires, and nothing else', () => {
    const p = plan();
    expect(p.cnpgOperator.kustomization?.remoteResources).toHaveLength(1);
    expect(p.cnpgOperator.waits.map((w) => w.kind)).toEqual(['crds-established', 'rollout', 'webhook-serving']);
    expect(p.argocdInstall.waits).toEqual(p.argocd.bootstrapRequirements.waits);
    expect(p.argocdInstall.kustomization).toBe(p.argocd.bootstrapRequirements.kustomization);
    expect(p.repoCredentialStep.preconditions).toEqual(p.repoCredential.bootstrapRequirements.preconditions);
    // Forgejo, then the Job that provisions its administrator, token and repository owner.
    expect(p.forgejoStep.waits).toEqual([...p.forgejo.bootstrapRequirements.waits!, ...p.forgejoAdmin.bootstrapRequirements.waits!]);
    // Forgejo, then the Job. The credentials of its backup's store are not checked by the CronJob's own `secret-exists`:
    // in Phase 0 the runbook installs them from the operator's env file, and forgejo-db's step, which always runs first,
    // already installs the same Secret (one store for both): once, so a re-run does not rewrite it.
    expect(p.forgejoBackup!.bootstrapRequirements.preconditions!.map((c) => c.kind)).toEqual(['secret-exists']);
    expect(p.forgejoStep.preconditions).toEqual([...p.forgejo.bootstrapRequirements.preconditions!,
      ...p.forgejoAdmin.bootstrapRequirements.preconditions!]);
    expect(p.postgres.get('forgejo-db')!.step.preconditions).toContainEqual(expect.objectContaining({ kind: 'secret-from-env-file',
      namespace: 'cicd', name: 'homelab-backup-s3', defaultPath: '~/.config/homelab/homelab-backup-s3.env', variable: 'HOMELAB_BACKUP_S3_ENV_FILE' }));
    expect(p.namespaces.waits).toEqual([]);
    expect(p.argocdRoot.waits).toEqual([]);
  });

  test('forgejo.restoreFrom restores in Forgejo\'s own pod, so the runbook\'s rollout wait (longer now) covers it', () => {
    // GIVEN
    const config = parseHomelabConfig({ ...REFERENCE_HOMELAB, forgejo: { ...REFERENCE_HOMELAB.forgejo, restoreFrom: { dump: 'latest' } } });

    // WHEN
    const p = new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', { config, repoUrl: () => 'git@github.com:o/r.git' });

    // THEN
    expect(p.forgejoRestore?.remote).toBe('STORE:homelab-backups/forgejo');
    expect(p.forgejoBackup?.remote).toBe(p.forgejoRestore?.remote);
    expect(p.forgejo.deployment.initContainers.map((c) => c.name)).toEqual(['restore-data']);
    expect(p.forgejoStep.waits).toContainEqual(expect.objectContaining({ kind: 'rollout', deployment: 'forgejo', timeoutSeconds: 3600 }));
    // Backup and restore read the Secret forgejo-db's step installs: the Forgejo step does not install it again.
    expect(p.forgejoStep.preconditions.filter((c) => c.kind === 'secret-from-env-file')).toEqual([]);
    const other = parseHomelabConfig({ ...REFERENCE_HOMELAB, forgejo: { ...REFERENCE_HOMELAB.forgejo, restoreFrom: {
      objectStore: { endpointURL: 'https://s3.old.example.net', bucket: 'old-backups', credentials: { secretName: 'old-s3' } } } } });
    const q = new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', { config: other, repoUrl: () => 'git@github.com:o/r.git' });
    expect(q.forgejoStep.preconditions).toContainEqual(expect.objectContaining({ kind: 'secret-from-env-file', name: 'old-s3',
      defaultPath: '~/.config/homelab/old-s3.env' }));
    expect(q.forgejoRestore?.remote).toBe('STORE:old-backups/forgejo');
    // Without restoreFrom, the pod has no init container and the rollout its usual ten minutes.
    expect(plan().forgejo.deployment.initContainers).toEqual([]);
    expect(plan().forgejoRestore).toBeUndefined();
  });

  test('every Phase-0 database waits in its cluster\'s step, with a margin over the Job\'s own deadline', () => {
    const p = plan();
    for (const pg of p.postgres.values()) {
      expect(pg.step.waits).toEqual([expect.objectContaining({ kind: 'job-complete', job: pg.wait.name, timeoutSeconds: pg.wait.timeout.toSeconds() + 120 })]);
      for (const db of pg.databases) expect(p.databases.get(db.pgName)).toBe(db);
      expect(p.clusters.get(pg.cluster.name)).toBe(pg.cluster);
    }
  });

  test('Forgejo is provisioned after it runs: administrator, the mirror token Secret, the GitHub owner as organisation', () => {
    const p = plan();
    expect(p.forgejoAdmin.node.dependencies).toContain(p.forgejo);
    expect(p.forgejoAdmin.username).toBe('forgejo-admin');
    expect(p.forgejoAdmin.passwordSecret).toBe('forgejo-admin');
    expect(p.forgejoAdmin.tokenSecret).toEqual({ name: 'forgejo-admin-token', key: 'token' });
    expect(p.forgejoAdmin.repoOwner).toBe('homelab-owner');
    // The config's default exposure reaches the construct.
    expect(p.forgejo.expose).toEqual({ type: 'LoadBalancer' });
    expect(p.forgejo.lanService?.name).toBe('forgejo-lan');
  });

  test('Forgejo starts only after the wait Job proves its database exists', () => {
    const p = plan();
    const pg = p.postgres.get('forgejo-db')!;
    expect(p.forgejo.node.dependencies).toContain(pg.wait);
    expect(p.forgejoStep.dependencies.map((d) => d.step)).toContain(pg.step);
  });

  test('a Phase-0 cluster with restoreFrom: its step first notes, before any change, that a Cluster already there is not restored again', () => {
    // GIVEN
    const config = parseHomelabConfig(backupExample);

    // WHEN
    const p = new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', { config, repoUrl: () => 'git@github.com:o/r.git' });

    // THEN
    expect(p.postgres.get('forgejo-db')!.step.preconditions[0]).toEqual({
      kind: 'note-when-exists', resource: 'clusters.postgresql.cnpg.io/forgejo-db', namespace: 'cicd', description: 'Cluster cicd/forgejo-db',
      whenExists: 'its bootstrap ran when it was created; restoreFrom is not applied again',
      whenAbsent: 'it is created now and recovers server forgejo-db from its object store (restoreFrom)',
    });
    // A cluster that initdb-s gets no note.
    const notes = (q: BootstrapPlan) => q.steps.flatMap((st) => st.preconditions).filter((c) => c.kind === 'note-when-exists');
    expect(notes(p)).toHaveLength(1);
    expect(notes(plan())).toEqual([]);
  });

  test('installSopsAgeKey installs the age key as the Secret the repo-server mounts, before Argo CD is applied', () => {
    // GIVEN
    const p = plan();
    expect(p.argocdInstall.preconditions).toEqual([]);

    // WHEN
    p.installSopsAgeKey('~/lab/age.txt');

    // THEN
    expect(p.argocd.sopsAgeSecretKey).toBe('keys.txt');
    expect(p.argocdInstall.preconditions).toEqual([expect.objectContaining({
      kind: 'secret-from-file', namespace: 'argocd', name: 'sops-age', key: 'keys.txt',
      variable: 'SOPS_AGE_KEY_FILE', defaultPath: '~/lab/age.txt', format: 'age-identity',
    })]);
    const volumes = JSON.stringify(p.argocd.bootstrapRequirements.patches!.map((o) => o.toJson()));
    expect(volumes).toContain('"secret":{"optional":true,"secretName":"sops-age"}');
    expect(volumes).toContain('"value":"/sops/keys.txt"');
  });
});

describe('BootstrapPlan after the cutover: a rebuild seeds from GitHub, verifies the mirror, then flips', () => {
  const FORGEJO_URL = 'http://forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/homelab.git';
  const cutover = (overrides: Partial<typeof REFERENCE_HOMELAB.git> = {}) => new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', {
    config: parseHomelabConfig({ ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, source: 'forgejo', ...overrides } }),
    repoUrl: () => FORGEJO_URL,
  });

  test('before the cutover there are no seed steps and no mirror check', () => {
    const p = plan();
    expect(p.seedCredentialStep).toBeUndefined();
    expect(p.seedRootStep).toBeUndefined();
    expect(p.steps.flatMap((s) => s.preconditions).filter((c) => c.kind === 'git-mirror-current')).toEqual([]);
    expect(p.repoCredential.secretFileCheckedAt).toBe('preflight');
  });

  test('the GitHub seed credential and root step come first, and the flip depends on Forgejo and on them', () => {
    // GIVEN / WHEN
    const p = cutover();
    // THEN
    const seedCredential = p.seedCredentialStep!;
    const seedRoot = p.seedRootStep!;
    expect(seedCredential.preconditions).toEqual([expect.objectContaining({ kind: 'local-file', variable: 'SEED_DEPLOY_KEY', format: 'ssh-private-key' })]);
    expect(seedRoot.dependencies.map((d) => d.step)).toEqual([p.argocdInstall, seedCredential]);
    expect(p.repoCredentialStep.dependencies.map((d) => d.step)).toEqual(expect.arrayContaining([p.forgejoStep, seedRoot]));
    expect(p.argocdRoot.dependencies.map((d) => d.step)).toContain(p.repoCredentialStep);
    expect(p.repoCredential.url).toBe(FORGEJO_URL);
  });

  test('the flip step checks the token at its step, then that the mirror holds the seed\'s commit', () => {
    const p = cutover();
    expect(p.repoCredential.secretFileCheckedAt).toBe('step');
    expect(p.repoCredentialStep.preconditions).toEqual([
      expect.objectContaining({ kind: 'local-file', variable: 'FORGEJO_READ_TOKEN', checkedAt: 'step' }),
      {
        kind: 'git-mirror-current',
        seedUrl: 'git@github.com:homelab-owner/homelab.git',
        seedKeyVariable: 'SEED_DEPLOY_KEY',
        branch: 'main',
        forgejoNamespace: p.forgejo.namespace,
        forgejoDeployment: p.forgejo.name,
        forgejoPort: p.forgejo.httpPort,
        repoOwner: 'homelab-owner',
        repoName: 'homelab',
        tokenVariable: 'FORGEJO_READ_TOKEN',
        // the default mirror interval (10m0s) and 15 minutes for Argo CD to create the mirror
        timeoutSeconds: 600 + 900,
        hint: expect.stringContaining('GitHub stays the repository you push to'),
      },
    ]);
  });

  test('the seed root is skipped once the live root app reads what the flip step applies; the seed credential never is', () => {
    // GIVEN the synthesized program after the cutover
    const s = synthesizeHomelab({ ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, source: 'forgejo' } });
    const p = s.bootstrap;
    // WHEN
    const skips = p.steps.flatMap((step) => step.preconditions.filter((c) => c.kind === 'skip-when').map((c) => [step.stepName, c] as const));
    // THEN the URL is read from the root app the flip step applies, not typed again
    const flipped = planSteps(p.steps).find((x) => x.step === p.argocdRoot)!.objects.find((o) => o.kind === 'Application')!;
    expect(flipped.spec.source.repoURL).toBe(FORGEJO_URL);
    expect(skips).toEqual([[p.seedRootStep!.stepName, {
      kind: 'skip-when',
      resource: `applications.argoproj.io/${flipped.metadata.name}`,
      namespace: flipped.metadata.namespace,
      jsonPath: '{.spec.source.repoURL}',
      equals: flipped.spec.source.repoURL,
      reason: 'the root app already reads the verified Forgejo mirror',
    }]]);
  });

  test('before the cutover no step is ever skipped', () => {
    const p = synthesizeHomelab(REFERENCE_HOMELAB).bootstrap;
    expect(p.steps.flatMap((step) => step.preconditions).filter((c) => c.kind === 'skip-when')).toEqual([]);
  });

  test('the mirror check follows git.targetRevision and forgejo.repoOwner', () => {
    const p = new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', {
      config: parseHomelabConfig({
        ...REFERENCE_HOMELAB,
        git: { ...REFERENCE_HOMELAB.git, source: 'forgejo', targetRevision: 'release' },
        forgejo: { ...REFERENCE_HOMELAB.forgejo, repoOwner: 'platform' },
      }),
      repoUrl: () => FORGEJO_URL,
    });
    expect(p.repoCredentialStep.preconditions[1]).toMatchObject({ branch: 'release', repoOwner: 'platform' });
  });
});

describe('a Phase-0 cluster recovered from a backup', () => {
  test('gets an hour for its wait (download and WAL replay), a new one a quarter of an hour', () => {
    const restoring = parseHomelabConfig({
      ...REFERENCE_HOMELAB,
      postgresClusters: {
        ...REFERENCE_HOMELAB.postgresClusters,
        'forgejo-db': {
          ...REFERENCE_HOMELAB.postgresClusters['forgejo-db'], initdbDatabase: undefined, initdbOwner: undefined,
          backup: { ...REFERENCE_HOMELAB.postgresClusters['forgejo-db'].backup!, serverName: 'forgejo-db-2' },
          restoreFrom: { serverName: 'forgejo-db', database: 'forgejo', owner: 'forgejo' },
        },
      },
    });
    const restored = new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', { config: restoring, repoUrl: () => 'git@github.com:o/r.git' });
    expect(restored.postgres.get('forgejo-db')!.wait.timeout.toSeconds()).toBe(3600);
    expect(restored.postgres.get('forgejo-db')!.step.waits).toContainEqual(expect.objectContaining({ kind: 'job-complete', timeoutSeconds: 3720 }));
    expect(plan().postgres.get('forgejo-db')!.wait.timeout.toSeconds()).toBe(900);
  });
});

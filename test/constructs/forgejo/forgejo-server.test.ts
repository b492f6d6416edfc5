import { Chart, Duration, Testing } from 'cdk8s';
import { Construct } from 'constructs';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { ForgejoServer, ForgejoServerProps } from '../../../lib/constructs/forgejo/forgejo-server';
import { Redis } from '../../../lib/constructs/forgejo/redis';
import { IMAGES } from '../../../lib/shared/pins';
import { undefinedReferences } from '../../fixtures/env-references';

const ADDRESS_LABEL = 'cdk8s.io/metadata.addr';

/** A chart with the CNPG cluster of the reference homelab: `forgejo-db` in `cicd`, initdb owner `forgejo`. */
function makeChart(chart: Chart = Testing.chart()): { chart: Chart; cluster: CnpgCluster } {
  const cluster = new CnpgCluster(chart, 'ForgejoDb', { name: 'forgejo-db', namespace: 'cicd', initdbDatabase: 'forgejo' });
  return { chart, cluster };
}

/** Props that use the cluster's initdb database and its CNPG-generated Secret. */
function defaultProps(cluster: CnpgCluster): ForgejoServerProps {
  return { namespace: 'cicd', database: { cluster, pgName: 'forgejo', owner: 'forgejo' } };
}

function find(objects: any[], kind: string, name: string): any {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} '${name}' in ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

function container(objects: any[], deployment = 'forgejo'): any {
  return find(objects, 'Deployment', deployment).spec.template.spec.containers[0];
}

function env(objects: any[], name: string): any {
  return container(objects).env.find((e: any) => e.name === name);
}

describe('ForgejoServer', () => {
  test('defaults', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    const forgejo = new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    expect(forgejo.name).toBe('forgejo');
    expect(forgejo.namespace).toBe('cicd');
    expect(forgejo.httpServiceName).toBe('forgejo-http');
    expect(forgejo.httpPort).toBe(3000);
    expect(forgejo.sshServiceName).toBe('forgejo-ssh');
    expect(forgejo.sshPort).toBe(2222);
    expect(forgejo.inClusterHttpUrl).toBe('http://forgejo-http.cicd.svc.cluster.local:3000');
    expect(forgejo.rootUrl).toBe('http://forgejo-http.cicd.svc.cluster.local:3000/');
    expect(forgejo.sshDomain).toBe('forgejo-ssh.cicd.svc.cluster.local');
    expect(forgejo.databaseSecret).toBe('forgejo-db-app');
    expect(forgejo.usesClusterSecret).toBe(true);
    expect(forgejo.storageSize).toBe('20Gi');
    expect(forgejo.storageClass).toBeUndefined();
    expect(forgejo.image).toBe(IMAGES.forgejo);
    expect(forgejo.rolloutTimeout.toSeconds()).toBe(600);
    expect(forgejo.redis.name).toBe('forgejo-redis');
    expect(forgejo.redis.namespace).toBe('cicd');
    expect(forgejo.expose).toEqual({ type: 'ClusterIP' });
    expect(forgejo.lanService).toBeUndefined();
    expect(forgejo.ingress).toBeUndefined();

    const objects = Testing.synth(chart);
    const pvc = find(objects, 'PersistentVolumeClaim', 'forgejo-data');
    expect(pvc.metadata.namespace).toBe('cicd');
    expect(pvc.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(pvc.spec.resources.requests.storage).toBe('20Gi');
    expect(pvc.spec).not.toHaveProperty('storageClassName');
    expect(container(objects).image).toBe(IMAGES.forgejo);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Cluster/forgejo-db',
      'PersistentVolumeClaim/forgejo-data',
      'Deployment/forgejo-redis',
      'Service/forgejo-redis',
      'Deployment/forgejo',
      'Service/forgejo-http',
      'Service/forgejo-ssh',
    ]);
    for (const o of objects.filter((x) => x.kind !== 'Cluster')) expect(o.metadata.namespace).toBe('cicd');
  });

  test('all props', () => {
    // GIVEN
    const { chart, cluster } = makeChart();
    const redis = new Redis(chart, 'Cache', { namespace: 'cicd', name: 'shared-redis', passwordSecret: 'shared-redis-auth' });
    const props: Required<ForgejoServerProps> = {
      namespace: 'cicd',
      database: { cluster, pgName: 'git', owner: 'gitea' },
      databaseSecret: 'forgejo-pg-credentials',
      storageSize: '50Gi',
      storageClass: 'longhorn',
      image: 'codeberg.org/forgejo/forgejo:16.0.2-rootless',
      redis,
      rootUrl: 'https://git.example.com/',
      rolloutTimeout: Duration.minutes(20),
      secretKeySecret: 'git-secret-key',
      secretKeyFile: { variable: 'GIT_KEY_FILE', defaultPath: '~/keys/git', hint: 'the key of the lost Forgejo' },
      expose: { type: 'Ingress', host: 'git.home.arpa', className: 'nginx' },
    };

    // WHEN
    const forgejo = new ForgejoServer(chart, 'Forgejo', props);

    // THEN
    expect(forgejo.databaseSecret).toBe('forgejo-pg-credentials');
    expect(forgejo.usesClusterSecret).toBe(false);
    expect(forgejo.storageSize).toBe('50Gi');
    expect(forgejo.storageClass).toBe('longhorn');
    expect(forgejo.image).toBe('codeberg.org/forgejo/forgejo:16.0.2-rootless');
    expect(forgejo.redis).toBe(redis);
    expect(forgejo.rootUrl).toBe('https://git.example.com/');
    expect(forgejo.sshDomain).toBe('git.example.com');
    expect(forgejo.rolloutTimeout.toSeconds()).toBe(1200);
    expect(forgejo.expose).toEqual({ type: 'Ingress', host: 'git.home.arpa', className: 'nginx' });
    // The given Redis' password is generated before anything else; a restore installs the lost Forgejo's SECRET_KEY from
    // the operator's file instead of generating a new one.
    expect(forgejo.bootstrapRequirements.preconditions![0]).toEqual(redis.bootstrapRequirements.preconditions![0]);
    expect(forgejo.bootstrapRequirements.preconditions![1]).toEqual({ kind: 'secret-from-file', namespace: 'cicd', name: 'git-secret-key',
      key: 'secret-key', format: 'token', variable: 'GIT_KEY_FILE', defaultPath: '~/keys/git', hint: 'the key of the lost Forgejo' });
    expect(forgejo.bootstrapRequirements.preconditions!.filter((p) => p.kind === 'generated-secret').map((p) => p.kind === 'generated-secret' && p.name))
      .toEqual(['shared-redis-auth']);

    const objects = Testing.synth(chart);
    // An explicit rootUrl wins over the one the Ingress implies.
    expect(find(objects, 'Ingress', 'forgejo').spec.rules[0].host).toBe('git.home.arpa');
    const pvc = find(objects, 'PersistentVolumeClaim', 'forgejo-data');
    expect(pvc.spec.resources.requests.storage).toBe('50Gi');
    expect(pvc.spec.storageClassName).toBe('longhorn');
    expect(container(objects).image).toBe('codeberg.org/forgejo/forgejo:16.0.2-rootless');
    expect(env(objects, 'FORGEJO__database__NAME').value).toBe('git');
    const secretRef = (name: string) => env(objects, name).valueFrom.secretKeyRef;
    expect(secretRef('FORGEJO__database__USER')).toEqual({ name: 'forgejo-pg-credentials', key: 'username' });
    expect(secretRef('FORGEJO__database__PASSWD')).toEqual({ name: 'forgejo-pg-credentials', key: 'password' });
    expect(env(objects, 'FORGEJO__cache__HOST').value).toBe('redis://:$(REDIS_PASSWORD)@shared-redis.cicd.svc:6379/0');
    expect(secretRef('REDIS_PASSWORD')).toEqual({ name: 'shared-redis-auth', key: 'password' });
    expect(env(objects, 'FORGEJO__server__ROOT_URL').value).toBe('https://git.example.com/');
    expect(env(objects, 'FORGEJO__server__DOMAIN').value).toBe('git.example.com');
    expect(env(objects, 'FORGEJO__server__SSH_DOMAIN').value).toBe('git.example.com');
    // The given Redis is used, not a second one.
    expect(objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name).sort()).toEqual(['forgejo', 'shared-redis']);
  });

  test('the Redis password variable comes before every variable that expands it, in the synthesized env list', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN Kubernetes expands $(VAR) only from variables defined earlier in the list; a later one stays literal text
    const names: string[] = container(Testing.synth(chart)).env.map((e: any) => e.name);
    const users = ['FORGEJO__cache__HOST', 'FORGEJO__session__PROVIDER_CONFIG', 'FORGEJO__queue__CONN_STR'];
    for (const user of users) expect(names.indexOf('REDIS_PASSWORD')).toBeLessThan(names.indexOf(user));
    expect(names.indexOf('REDIS_PASSWORD')).toBeGreaterThanOrEqual(0);
    expect(undefinedReferences(container(Testing.synth(chart)).env)).toEqual([]);
  });

  test('a Redis in another namespace is refused: Forgejo could not read its password Secret', () => {
    const { chart, cluster } = makeChart();
    const redis = new Redis(chart, 'Cache', { namespace: 'cache', name: 'shared-redis' });
    expect(() => new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), redis })).toThrow(
      "Forgejo: redis 'shared-redis' is in namespace 'cache', not 'cicd', so Forgejo cannot read its password Secret " +
      "'shared-redis-password' (a pod reads Secrets of its own namespace only). Define the Redis in namespace 'cicd', or leave 'redis' unset.");
  });

  test('every Service selects exactly its Deployment\'s pods, by stable labels', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    const objects = Testing.synth(chart);
    const forgejoPods = { 'app.kubernetes.io/name': 'forgejo', 'app.kubernetes.io/instance': 'forgejo' };
    const redisPods = { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': 'forgejo-redis' };
    const expected: Record<string, { deployment: string; selector: Record<string, string> }> = {
      'forgejo-http': { deployment: 'forgejo', selector: forgejoPods },
      'forgejo-ssh': { deployment: 'forgejo', selector: forgejoPods },
      'forgejo-redis': { deployment: 'forgejo-redis', selector: redisPods },
    };
    const services = objects.filter((o) => o.kind === 'Service');
    expect(services.map((s) => s.metadata.name).sort()).toEqual(Object.keys(expected).sort());
    for (const service of services) {
      const { deployment: name, selector } = expected[service.metadata.name];
      const deployment = find(objects, 'Deployment', name);
      const podLabels = deployment.spec.template.metadata.labels;
      expect(service.spec.selector).toEqual(selector);
      expect(deployment.spec.selector).toEqual({ matchLabels: selector });
      expect(podLabels).toEqual(expect.objectContaining(service.spec.selector));
      // The Service selects no pod of another Deployment.
      for (const other of objects.filter((o) => o.kind === 'Deployment' && o.metadata.name !== name)) {
        expect(other.spec.template.metadata.labels).not.toEqual(expect.objectContaining(service.spec.selector));
      }
    }
  });

  test('no label or selector carries the construct address', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    const objects = Testing.synth(chart);
    for (const o of objects) {
      expect(o.metadata.labels ?? {}).not.toHaveProperty([ADDRESS_LABEL]);
      if (o.kind === 'Deployment') {
        expect(o.spec.selector.matchLabels).not.toHaveProperty([ADDRESS_LABEL]);
        expect(o.spec.selector).not.toHaveProperty('matchExpressions');
        expect(o.spec.template.metadata.labels).not.toHaveProperty([ADDRESS_LABEL]);
      }
      if (o.kind === 'Service') expect(o.spec.selector).not.toHaveProperty([ADDRESS_LABEL]);
    }
    expect(JSON.stringify(objects)).not.toContain(ADDRESS_LABEL);
  });

  test('selectors do not change when the construct moves in the tree', () => {
    // GIVEN
    const a = makeChart();
    const b = makeChart();

    // WHEN
    new ForgejoServer(a.chart, 'Forgejo', defaultProps(a.cluster));
    new ForgejoServer(new Construct(new Construct(b.chart, 'Refactored'), 'Deeper'), 'Git', defaultProps(b.cluster));

    // THEN
    expect(Testing.synth(b.chart)).toEqual(Testing.synth(a.chart));
  });

  test('database settings come from the cluster, credentials by reference', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    const objects = Testing.synth(chart);
    expect(env(objects, 'FORGEJO__database__DB_TYPE')).toEqual({ name: 'FORGEJO__database__DB_TYPE', value: 'postgres' });
    expect(env(objects, 'FORGEJO__database__HOST').value).toBe('forgejo-db-rw.cicd.svc:5432');
    expect(env(objects, 'FORGEJO__database__HOST').value).toBe(`${cluster.readWriteHost}:5432`);
    expect(env(objects, 'FORGEJO__database__NAME').value).toBe('forgejo');
    expect(env(objects, 'FORGEJO__database__USER')).toEqual({
      name: 'FORGEJO__database__USER',
      valueFrom: { secretKeyRef: { name: 'forgejo-db-app', key: 'username' } },
    });
    expect(env(objects, 'FORGEJO__database__PASSWD')).toEqual({
      name: 'FORGEJO__database__PASSWD',
      valueFrom: { secretKeyRef: { name: 'forgejo-db-app', key: 'password' } },
    });
    expect(env(objects, 'FORGEJO__database__SSL_MODE').value).toBe('require');
    // Only references: no Secret object and no credential values in the output.
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(container(objects).env.filter((e: any) => 'valueFrom' in e).map((e: any) => e.name))
      .toEqual(['FORGEJO__database__USER', 'FORGEJO__database__PASSWD', 'REDIS_PASSWORD', 'FORGEJO__security__SECRET_KEY']);
    expect(env(objects, 'FORGEJO__security__SECRET_KEY').valueFrom.secretKeyRef).toEqual({ name: 'forgejo-secret-key', key: 'secret-key' });
  });

  test('cache, sessions and queues on Redis; server settings', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    const forgejo = new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    const objects = Testing.synth(chart);
    expect(forgejo.redis.url).toBe('redis://forgejo-redis.cicd.svc:6379/0');
    // The password is Kubernetes' expansion of a variable read from Redis' Secret, never a value in the output.
    const redisUrl = 'redis://:$(REDIS_PASSWORD)@forgejo-redis.cicd.svc:6379/0';
    expect(env(objects, 'REDIS_PASSWORD')).toEqual({
      name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'forgejo-redis-password', key: 'password' } },
    });
    expect(forgejo.redis.passwordSecret).toBe('forgejo-redis-password');
    const values = Object.fromEntries(container(objects).env.filter((e: any) => 'value' in e).map((e: any) => [e.name, e.value]));
    expect(values).toEqual(expect.objectContaining({
      FORGEJO__cache__ADAPTER: 'redis',
      FORGEJO__cache__HOST: redisUrl,
      FORGEJO__session__PROVIDER: 'redis',
      FORGEJO__session__PROVIDER_CONFIG: redisUrl,
      FORGEJO__queue__TYPE: 'redis',
      FORGEJO__queue__CONN_STR: redisUrl,
      FORGEJO__server__ROOT_URL: 'http://forgejo-http.cicd.svc.cluster.local:3000/',
      FORGEJO__server__DOMAIN: 'forgejo-http.cicd.svc.cluster.local',
      FORGEJO__server__SSH_DOMAIN: 'forgejo-ssh.cicd.svc.cluster.local',
      FORGEJO__server__HTTP_PORT: '3000',
      FORGEJO__server__START_SSH_SERVER: 'true',
      FORGEJO__server__SSH_PORT: '2222',
      FORGEJO__server__SSH_LISTEN_PORT: '2222',
      FORGEJO__security__INSTALL_LOCK: 'true',
      GITEA_TEMP: '/tmp/gitea',
    }));
  });

  test('Deployment: one replica, Recreate, volumes, no service links', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    const forgejo = new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    const deployment = find(Testing.synth(chart), 'Deployment', 'forgejo');
    expect(forgejo.deployment.replicas).toBe(1);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    const pod = deployment.spec.template.spec;
    expect(pod.enableServiceLinks).toBe(false);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'forgejo-data', readOnly: false } },
      { name: 'tmp', emptyDir: { sizeLimit: '1024Mi' } },
    ]);
    expect(pod.containers[0].volumeMounts).toEqual([
      { name: 'data', mountPath: '/var/lib/gitea' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(pod.containers[0].ports).toEqual([{ containerPort: 3000, name: 'http' }, { containerPort: 2222, name: 'ssh' }]);
  });

  test('Services: names, ports and port names', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    const objects = Testing.synth(chart);
    expect(find(objects, 'Service', 'forgejo-http').spec.ports).toEqual([{ name: 'http', port: 3000, targetPort: 3000 }]);
    expect(find(objects, 'Service', 'forgejo-ssh').spec.ports).toEqual([{ name: 'ssh', port: 2222, targetPort: 2222 }]);
    expect(find(objects, 'Service', 'forgejo-redis').spec.ports).toEqual([{ name: 'redis', port: 6379, targetPort: 6379 }]);
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      expect(service.spec.type).toBe('ClusterIP');
      for (const port of service.spec.ports) expect(port.name.length).toBeLessThanOrEqual(15);
    }
  });

  test('restricted security context', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    const deployment = find(Testing.synth(chart), 'Deployment', 'forgejo');
    expect(deployment.spec.template.spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      fsGroup: 1000,
      fsGroupChangePolicy: 'OnRootMismatch',
    });
    expect(deployment.spec.template.spec.containers[0].securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  test('explicit resources', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    expect(container(Testing.synth(chart)).resources).toEqual({
      requests: { cpu: '100m', memory: '256Mi' },
      limits: { memory: '1024Mi' },
    });
  });

  test('probes: healthz for startup and readiness, lenient TCP liveness', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // WHEN
    new ForgejoServer(chart, 'Forgejo', defaultProps(cluster));

    // THEN
    const c = container(Testing.synth(chart));
    for (const probe of [c.startupProbe, c.readinessProbe]) {
      expect(probe.httpGet).toEqual({ path: '/api/healthz', port: 3000, scheme: 'HTTP' });
    }
    expect(c.startupProbe.failureThreshold * c.startupProbe.periodSeconds).toBe(300);
    expect(c.livenessProbe.tcpSocket).toEqual({ port: 3000 });
    expect(c.livenessProbe.failureThreshold).toBe(6);
  });

  test('Forgejo comes after its Redis, wherever the Redis is in the tree', () => {
    // GIVEN
    const { chart, cluster } = makeChart();
    const early = new Construct(chart, 'Early');
    const late = new Construct(chart, 'Late');
    const redis = new Redis(late, 'Redis', { namespace: 'cicd', name: 'forgejo-redis' });

    // WHEN
    const forgejo = new ForgejoServer(early, 'Forgejo', { ...defaultProps(cluster), redis });

    // THEN
    expect(forgejo.deployment.node.dependencies).toContain(redis);
    const names = Testing.synth(chart).map((o) => `${o.kind}/${o.metadata.name}`);
    expect(names.indexOf('Deployment/forgejo-redis')).toBeLessThan(names.indexOf('Deployment/forgejo'));
    expect(names.indexOf('Service/forgejo-redis')).toBeLessThan(names.indexOf('Deployment/forgejo'));
  });

  test('waits for Redis, then Forgejo, inside a bootstrap step', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });
    const { cluster } = makeChart(step);

    // WHEN
    step.addComponent(new ForgejoServer(step, 'Forgejo', defaultProps(cluster)));

    // THEN
    expect(step.waits).toEqual([
      { kind: 'rollout', namespace: 'cicd', deployment: 'forgejo-redis', timeoutSeconds: 300 },
      { kind: 'rollout', namespace: 'cicd', deployment: 'forgejo', timeoutSeconds: 600 },
    ]);
    // Redis' password and Forgejo's key are generated before the step (Redis' first: both Deployments read it). The
    // CNPG-generated Secret appears only once the cluster is up; nothing to check beforehand.
    expect(step.preconditions).toEqual([
      { kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-redis-password', key: 'password', bytes: 32, encoding: 'hex' },
      { kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-secret-key', key: 'secret-key', bytes: 48 },
    ]);
  });

  test('leaves the chart it is in alone: a step applies it only through addComponent()', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });
    const { cluster } = makeChart(step);

    // WHEN
    const forgejo = new ForgejoServer(step, 'Forgejo', defaultProps(cluster));

    // THEN
    expect(step.waits).toEqual([]);
    expect(step.preconditions).toEqual([]);
    expect(forgejo.bootstrapRequirements.waits?.map((w) => w.kind === 'rollout' && w.deployment)).toEqual(['forgejo-redis', 'forgejo']);
  });

  test('throws when a step is asked to apply a component defined in another chart', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });
    const other = new BootstrapStep(app, 'Other', { stepName: 'other', summary: 'x' });
    const { cluster } = makeChart(other);
    const forgejo = new ForgejoServer(other, 'Forgejo', defaultProps(cluster));

    // THEN
    expect(() => step.addComponent(forgejo))
      .toThrow("bootstrap step 'forgejo': component 'Other/Forgejo' is defined in another chart; define it inside the step");
  });

  test('waits nested deeper inside a bootstrap step', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });
    const { cluster } = makeChart(step);

    // WHEN
    step.addComponent(new ForgejoServer(new Construct(step, 'Git'), 'Forgejo', defaultProps(cluster)));

    // THEN
    expect(step.waits.map((w) => w.kind === 'rollout' && w.deployment)).toEqual(['forgejo-redis', 'forgejo']);
  });

  test('a Secret the user provides becomes a precondition', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });
    const cluster = new CnpgCluster(step, 'Db', { name: 'shared-pg', namespace: 'databases', managedRoles: ['forgejo'] });

    // WHEN
    const forgejo = new ForgejoServer(step, 'Forgejo', {
      namespace: 'cicd',
      database: { cluster, pgName: 'forgejo', owner: 'forgejo' },
      databaseSecret: 'forgejo-db-credentials',
    });

    step.addComponent(forgejo);

    // THEN
    expect(forgejo.databaseSecret).toBe('forgejo-db-credentials');
    expect(step.preconditions).toEqual([{ kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-redis-password', key: 'password', bytes: 32, encoding: 'hex' }, { kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-secret-key', key: 'secret-key', bytes: 48 }, {
      kind: 'secret-exists',
      namespace: 'cicd',
      name: 'forgejo-db-credentials',
      hint: 'Create Secret \'forgejo-db-credentials\' in namespace \'cicd\' with keys \'username\' and \'password\' ' +
        'for PostgreSQL role \'forgejo\' on cluster \'shared-pg\'.',
    }]);
    const objects = Testing.synth(step);
    expect(env(objects, 'FORGEJO__database__HOST').value).toBe('shared-pg-rw.databases.svc:5432');
    expect(env(objects, 'FORGEJO__database__PASSWD').valueFrom.secretKeyRef).toEqual({ name: 'forgejo-db-credentials', key: 'password' });
  });

  test('naming the CNPG Secret explicitly is not a precondition', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });
    const { cluster } = makeChart(step);

    // WHEN
    step.addComponent(new ForgejoServer(step, 'Forgejo', { ...defaultProps(cluster), databaseSecret: 'forgejo-db-app' }));

    // THEN
    expect(step.preconditions.map((p) => p.kind === 'generated-secret' && p.name)).toEqual(['forgejo-redis-password', 'forgejo-secret-key']);
  });

  test('throws for a cluster in another namespace without databaseSecret', () => {
    // GIVEN
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'shared-pg', namespace: 'databases', initdbDatabase: 'forgejo' });

    // THEN
    expect(() => new ForgejoServer(chart, 'Forgejo', { namespace: 'cicd', database: { cluster, pgName: 'forgejo', owner: 'forgejo' } }))
      .toThrow('test/Forgejo: postgres cluster \'shared-pg\' is in namespace \'databases\', not \'cicd\', so Forgejo cannot read its ' +
        'Secret \'shared-pg-app\' (a pod reads Secrets of its own namespace only). Set \'databaseSecret\' to a Secret in ' +
        'namespace \'cicd\' with keys \'username\' and \'password\' for role \'forgejo\'.');
  });

  test('throws for an owner that is not the initdb owner without databaseSecret', () => {
    // GIVEN
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'forgejo-db', namespace: 'cicd', managedRoles: ['forgejo'] });

    // THEN
    expect(() => new ForgejoServer(chart, 'Forgejo', { namespace: 'cicd', database: { cluster, pgName: 'forgejo', owner: 'forgejo' } }))
      .toThrow('test/Forgejo: database owner \'forgejo\' is not the initdb owner \'app\' of postgres cluster \'forgejo-db\', so its ' +
        'Secret \'forgejo-db-app\' holds the wrong role. Set \'databaseSecret\' to a Secret in namespace \'cicd\' with keys ' +
        '\'username\' and \'password\' for role \'forgejo\'.');
  });

  test('throws for a storageSize that is not a quantity', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // THEN
    expect(() => new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), storageSize: '20 GB' }))
      .toThrow('test/Forgejo: \'storageSize\' must be a positive Kubernetes quantity such as \'20Gi\', got \'20 GB\'.');
  });

  test('throws for a rootUrl that is not an absolute http(s) URL', () => {
    // GIVEN
    const { chart, cluster } = makeChart();

    // THEN
    expect(() => new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), rootUrl: 'git.example.com' }))
      .toThrow('forgejo: rootUrl must be an absolute http(s) URL such as \'https://git.example.com/\', got \'git.example.com\'.');
    expect(() => new ForgejoServer(chart, 'Forgejo2', { ...defaultProps(cluster), rootUrl: 'ftp://git.example.com/' }))
      .toThrow(/rootUrl must be an absolute http\(s\) URL/);
  });

  test('synthesizes the same bytes twice', () => {
    const build = () => {
      const app = Testing.app();
      const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });
      const { cluster } = makeChart(step);
      new ForgejoServer(step, 'Forgejo', defaultProps(cluster));
      return app.synthYaml();
    };
    expect(build()).toEqual(build());
  });

  describe('expose', () => {
    test('LoadBalancer with an address: one Service with both ports; ROOT_URL and SSH host follow the address', () => {
      // GIVEN
      const { chart, cluster } = makeChart();

      // WHEN
      const forgejo = new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'LoadBalancer', address: '192.168.1.165' } });

      // THEN
      expect(forgejo.rootUrl).toBe('http://192.168.1.165:3000/');
      expect(forgejo.sshDomain).toBe('192.168.1.165');
      expect(forgejo.lanService?.name).toBe('forgejo-lan');
      const objects = Testing.synth(chart);
      const lan = find(objects, 'Service', 'forgejo-lan');
      expect(lan.metadata.namespace).toBe('cicd');
      expect(lan.spec.type).toBe('LoadBalancer');
      expect(lan.spec.loadBalancerIP).toBe('192.168.1.165');
      expect(lan.spec.selector).toEqual(find(objects, 'Deployment', 'forgejo').spec.selector.matchLabels);
      expect(lan.spec.ports).toEqual([
        { name: 'http', port: 3000, targetPort: 3000 },
        { name: 'ssh', port: 2222, targetPort: 2222 },
      ]);
      expect(env(objects, 'FORGEJO__server__ROOT_URL').value).toBe('http://192.168.1.165:3000/');
      expect(env(objects, 'FORGEJO__server__DOMAIN').value).toBe('192.168.1.165');
      expect(env(objects, 'FORGEJO__server__SSH_DOMAIN').value).toBe('192.168.1.165');
      // The in-cluster Services stay ClusterIP: Argo CD and the mirror Job use them.
      expect(find(objects, 'Service', 'forgejo-http').spec.type).toBe('ClusterIP');
      expect(objects.some((o) => o.kind === 'Ingress')).toBe(false);
    });

    test('LoadBalancer with an IPv6 address brackets it in ROOT_URL', () => {
      const { chart, cluster } = makeChart();
      const forgejo = new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'LoadBalancer', address: 'fd00::165' } });
      expect(forgejo.rootUrl).toBe('http://[fd00::165]:3000/');
    });

    test('LoadBalancer without an address: the implementation picks one, ROOT_URL stays in-cluster', () => {
      const { chart, cluster } = makeChart();
      const forgejo = new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'LoadBalancer' } });
      expect(forgejo.rootUrl).toBe('http://forgejo-http.cicd.svc.cluster.local:3000/');
      expect(forgejo.sshDomain).toBe('forgejo-ssh.cicd.svc.cluster.local');
      const lan = find(Testing.synth(chart), 'Service', 'forgejo-lan');
      expect(lan.spec.type).toBe('LoadBalancer');
      expect(lan.spec).not.toHaveProperty('loadBalancerIP');
    });

    test('Ingress: routes the host to the HTTP Service; ROOT_URL is the host', () => {
      // GIVEN
      const { chart, cluster } = makeChart();

      // WHEN
      const forgejo = new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'Ingress', host: 'git.home.arpa' } });

      // THEN
      expect(forgejo.rootUrl).toBe('http://git.home.arpa/');
      expect(forgejo.sshDomain).toBe('git.home.arpa');
      expect(forgejo.ingress?.name).toBe('forgejo');
      const objects = Testing.synth(chart);
      const ingress = find(objects, 'Ingress', 'forgejo');
      expect(ingress.metadata.namespace).toBe('cicd');
      expect(ingress.spec).not.toHaveProperty('ingressClassName');
      expect(ingress.spec.rules).toEqual([{
        host: 'git.home.arpa',
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'forgejo-http', port: { number: 3000 } } } }] },
      }]);
      expect(objects.some((o) => o.kind === 'Service' && o.spec.type === 'LoadBalancer')).toBe(false);
    });

    test('Ingress with a className', () => {
      const { chart, cluster } = makeChart();
      new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'Ingress', host: 'git.home.arpa', className: 'traefik' } });
      expect(find(Testing.synth(chart), 'Ingress', 'forgejo').spec.ingressClassName).toBe('traefik');
    });

    test('throws for a LoadBalancer address that is not an IP address', () => {
      const { chart, cluster } = makeChart();
      expect(() => new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'LoadBalancer', address: '192.168.1.300' } }))
        .toThrow('test/Forgejo: \'expose.address\' must be an IPv4 or IPv6 address such as \'192.168.1.165\', got \'192.168.1.300\'.');
      expect(() => new ForgejoServer(chart, 'Forgejo2', { ...defaultProps(cluster), expose: { type: 'LoadBalancer', address: 'git.home.arpa' } }))
        .toThrow(/'expose.address' must be an IPv4 or IPv6 address/);
    });

    test('throws for an Ingress host that is not a DNS name', () => {
      const { chart, cluster } = makeChart();
      expect(() => new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'Ingress', host: 'https://git.home.arpa/' } }))
        .toThrow('test/Forgejo: \'expose.host\' must be a DNS name such as \'git.home.arpa\' (lower case, no scheme, port or path), ' +
          'got \'https://git.home.arpa/\'.');
    });

    test('throws for an Ingress className that is not a name', () => {
      const { chart, cluster } = makeChart();
      expect(() => new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'Ingress', host: 'git.home.arpa', className: 'Nginx Class' } }))
        .toThrow('test/Forgejo: \'expose.className\' must be an IngressClass name such as \'nginx\', got \'Nginx Class\'.');
    });

    test('throws for an unknown type', () => {
      const { chart, cluster } = makeChart();
      expect(() => new ForgejoServer(chart, 'Forgejo', { ...defaultProps(cluster), expose: { type: 'NodePort' } as never }))
        .toThrow('test/Forgejo: \'expose.type\' must be \'LoadBalancer\', \'Ingress\' or \'ClusterIP\', got \'NodePort\'.');
    });
  });
});

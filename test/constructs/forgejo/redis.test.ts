import { ApiObject, Duration, Testing } from 'cdk8s';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { Redis, RedisProps } from '../../../lib/constructs/forgejo/redis';
import { IMAGES } from '../../../lib/shared/pins';
import { undefinedCommandReferences } from '../../fixtures/env-references';

const ADDRESS_LABEL = 'cdk8s.io/metadata.addr';

function find(objects: any[], kind: string, name: string): any {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} '${name}' in ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

describe('Redis', () => {
  test('defaults', () => {
    // GIVEN
    const chart = Testing.chart();

    // WHEN
    const redis = new Redis(chart, 'Redis', { namespace: 'cicd' });

    // THEN
    expect(redis.name).toBe('redis');
    expect(redis.serviceName).toBe('redis');
    expect(redis.namespace).toBe('cicd');
    expect(redis.image).toBe(IMAGES.redis);
    expect(redis.port).toBe(6379);
    expect(redis.host).toBe('redis.cicd.svc');
    expect(redis.url).toBe('redis://redis.cicd.svc:6379/0');
    expect(redis.passwordSecret).toBe('redis-password');
    expect(redis.passwordSecretKey).toBe('password');
    expect(redis.rolloutTimeout.toSeconds()).toBe(300);
    expect(ApiObject.of(redis).kind).toBe('Deployment');

    const objects = Testing.synth(chart);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Deployment/redis', 'Service/redis']);
    expect(find(objects, 'Deployment', 'redis').spec.template.spec.containers[0].image).toBe(IMAGES.redis);
  });

  test('all props', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Step', { stepName: 'forgejo', summary: 'x' });
    const props: Required<RedisProps> = {
      namespace: 'cache',
      name: 'forgejo-redis',
      image: 'docker.io/library/redis:8.10.0',
      rolloutTimeout: Duration.minutes(2),
      passwordSecret: 'cache-auth',
    };

    // WHEN
    const redis = new Redis(step, 'Redis', props);
    step.addComponent(redis);

    // THEN
    expect(redis.name).toBe('forgejo-redis');
    expect(redis.url).toBe('redis://forgejo-redis.cache.svc:6379/0');
    expect(redis.image).toBe('docker.io/library/redis:8.10.0');
    expect(redis.rolloutTimeout.toSeconds()).toBe(120);
    expect(redis.passwordSecret).toBe('cache-auth');
    const objects = Testing.synth(step);
    const deployment = find(objects, 'Deployment', 'forgejo-redis');
    expect(deployment.metadata.namespace).toBe('cache');
    expect(deployment.spec.template.spec.containers[0].image).toBe('docker.io/library/redis:8.10.0');
    expect(find(objects, 'Service', 'forgejo-redis').metadata.namespace).toBe('cache');
    expect(step.waits).toEqual([{ kind: 'rollout', namespace: 'cache', deployment: 'forgejo-redis', timeoutSeconds: 120 }]);
    expect(step.preconditions).toEqual([
      { kind: 'generated-secret', namespace: 'cache', name: 'cache-auth', key: 'password', bytes: 32, encoding: 'hex' },
    ]);
    expect(deployment.spec.template.spec.containers[0].env).toEqual([
      { name: 'REDISCLI_AUTH', valueFrom: { secretKeyRef: { name: 'cache-auth', key: 'password' } } },
    ]);
  });

  test('cache only: no persistence, bounded memory, emptyDir /data', () => {
    // GIVEN
    const chart = Testing.chart();

    // WHEN
    new Redis(chart, 'Redis', { namespace: 'cicd' });

    // THEN
    const deployment = find(Testing.synth(chart), 'Deployment', 'redis');
    const c = deployment.spec.template.spec.containers[0];
    expect(c.args).toEqual([
      'redis-server', '--save', '', '--appendonly', 'no', '--requirepass', '$(REDISCLI_AUTH)', '--protected-mode', 'yes',
      '--maxmemory', '192mb', '--maxmemory-policy', 'volatile-lru',
    ]);
    expect(c.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }]);
    expect(deployment.spec.template.spec.volumes).toEqual([{ name: 'data', emptyDir: { sizeLimit: '64Mi' } }]);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
  });

  test('Service selects exactly the Deployment\'s pods, without the construct address', () => {
    // GIVEN
    const chart = Testing.chart();

    // WHEN
    const redis = new Redis(chart, 'Redis', { namespace: 'cicd', name: 'forgejo-redis' });

    // THEN
    const objects = Testing.synth(chart);
    const deployment = find(objects, 'Deployment', 'forgejo-redis');
    const service = find(objects, 'Service', 'forgejo-redis');
    const selector = { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': 'forgejo-redis' };
    expect(redis.selector).toEqual(selector);
    expect(service.spec.selector).toEqual(selector);
    expect(deployment.spec.selector).toEqual({ matchLabels: selector });
    expect(deployment.spec.template.metadata.labels).toEqual(expect.objectContaining(selector));
    expect(service.spec.ports).toEqual([{ name: 'redis', port: 6379, targetPort: 6379 }]);
    expect(JSON.stringify(objects)).not.toContain(ADDRESS_LABEL);
  });

  test('restricted security context and explicit resources', () => {
    // GIVEN
    const chart = Testing.chart();

    // WHEN
    new Redis(chart, 'Redis', { namespace: 'cicd' });

    // THEN
    const pod = find(Testing.synth(chart), 'Deployment', 'redis').spec.template.spec;
    expect(pod.securityContext).toEqual(expect.objectContaining({ runAsNonRoot: true, runAsUser: 999, runAsGroup: 999, fsGroup: 999 }));
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.containers[0].securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 999,
      runAsGroup: 999,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers[0].resources).toEqual({ requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } });
  });

  test('probes: an authenticated redis-cli ping that fails on an error reply for readiness, TCP for liveness', () => {
    // GIVEN
    const chart = Testing.chart();

    // WHEN
    new Redis(chart, 'Redis', { namespace: 'cicd' });

    // THEN -e: an error reply (NOAUTH, WRONGPASS) fails the probe; the password comes from REDISCLI_AUTH, not argv
    const c = find(Testing.synth(chart), 'Deployment', 'redis').spec.template.spec.containers[0];
    expect(c.readinessProbe.exec).toEqual({ command: ['redis-cli', '-e', '-p', '6379', 'ping'] });
    expect(c.env.map((e: any) => e.name)).toContain('REDISCLI_AUTH');
    expect(c.livenessProbe.tcpSocket).toEqual({ port: 6379 });
  });

  test('requires a password, read by reference from its Secret: the output holds the reference, never a value', () => {
    // GIVEN
    const chart = Testing.chart();

    // WHEN
    new Redis(chart, 'Redis', { namespace: 'cicd', name: 'forgejo-redis' });

    // THEN the variable the server's --requirepass expands is defined in the same container, from the Secret
    const objects = Testing.synth(chart);
    const c = find(objects, 'Deployment', 'forgejo-redis').spec.template.spec.containers[0];
    expect(c.env).toEqual([{ name: 'REDISCLI_AUTH', valueFrom: { secretKeyRef: { name: 'forgejo-redis-password', key: 'password' } } }]);
    expect(c.args.slice(c.args.indexOf('--requirepass'), c.args.indexOf('--requirepass') + 2)).toEqual(['--requirepass', '$(REDISCLI_AUTH)']);
    expect(undefinedCommandReferences(c)).toEqual([]);
    expect(objects.map((o) => o.kind)).not.toContain('Secret');
    expect(c.env.every((e: any) => e.value === undefined)).toBe(true);
  });

  test('throws on a passwordSecret that is not a Secret name, naming the prop and the value', () => {
    const chart = Testing.chart();
    expect(() => new Redis(chart, 'Redis', { namespace: 'cicd', passwordSecret: 'Redis_Password' })).toThrow(
      "Redis: 'passwordSecret' must be a Secret name (lower-case letters, digits, '-' and '.', at most 253 characters) " +
      "such as 'forgejo-redis-password', got 'Redis_Password'.");
  });

  test('urlWithPasswordFrom puts a reference to the variable in the user info; a name that is not a variable throws', () => {
    const chart = Testing.chart();
    const redis = new Redis(chart, 'Redis', { namespace: 'cicd', name: 'forgejo-redis' });
    expect(redis.urlWithPasswordFrom('REDIS_PASSWORD')).toBe('redis://:$(REDIS_PASSWORD)@forgejo-redis.cicd.svc:6379/0');
    // The user is empty and the password is the part after ':', as Go's url.Parse (which Forgejo uses) splits it too.
    const parsed = new URL(redis.urlWithPasswordFrom('P').replace('$(P)', '0123abcd'));
    expect([parsed.username, parsed.password, parsed.host, parsed.pathname]).toEqual(['', '0123abcd', 'forgejo-redis.cicd.svc:6379', '/0']);
    expect(() => redis.urlWithPasswordFrom('A)@evil')).toThrow("Redis: the password variable must be a shell-style name such as 'REDIS_PASSWORD', got 'A)@evil'.");
  });

  test('inside a bootstrap step: its password Secret is generated once before the step, hex for URLs; then a rollout wait', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });

    // WHEN
    step.addComponent(new Redis(step, 'Redis', { namespace: 'cicd', name: 'forgejo-redis' }));

    // THEN
    expect(step.preconditions).toEqual([
      { kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-redis-password', key: 'password', bytes: 32, encoding: 'hex' },
    ]);
    expect(step.waits).toEqual([{ kind: 'rollout', namespace: 'cicd', deployment: 'forgejo-redis', timeoutSeconds: 300 }]);
  });
});

import { execFileSync } from 'child_process';
import { APPLICATION_HEALTH_LUA, CNPG_DATABASE_HEALTH_LUA } from '../../../lib/constructs/argocd/health-checks';
import { findTool, testWith } from '../../tools';

// Argo CD runs health checks in gopher-lua (Lua 5.1). The scripts are executed for real against sample
// objects by a Lua 5.1 interpreter (.ci/run installs lua5.1); without one, these tests are skipped.
const LUA = findTool('lua5.1', ['lua5.1', 'lua'], '-v');
const luaTest = testWith(LUA);

function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(toLua).join(', ')}}`;
  return `{${Object.entries(value as object).map(([k, v]) => `[${JSON.stringify(k)}] = ${toLua(v)}`).join(', ')}}`;
}

function health(script: string, obj: unknown): { status: string; message: string } {
  const program = `obj = ${toLua(obj)}\nlocal function check()\n${script}\nend\nlocal hs = check()\nio.write(hs.status .. "|" .. (hs.message or ""))`;
  const out = execFileSync(LUA.command!, ['-'], { input: program }).toString();
  const [status, message] = out.split('|');
  return { status, message };
}

describe('Application health check (app-of-apps gate)', () => {
  luaTest('Progressing until the child is Synced, even when it reports Healthy', () => {
    expect(health(APPLICATION_HEALTH_LUA, { status: { sync: { status: 'OutOfSync' }, health: { status: 'Healthy' } } }))
      .toEqual({ status: 'Progressing', message: 'Waiting for sync (OutOfSync)' });
  });
  luaTest('Progressing while Missing (since 3.4 Missing means all resources are missing)', () => {
    expect(health(APPLICATION_HEALTH_LUA, { status: { sync: { status: 'Synced' }, health: { status: 'Missing' } } }).status)
      .toBe('Progressing');
  });
  luaTest('passes through the child health once Synced', () => {
    expect(health(APPLICATION_HEALTH_LUA, { status: { sync: { status: 'Synced' }, health: { status: 'Healthy' } } }))
      .toEqual({ status: 'Healthy', message: '' });
    expect(health(APPLICATION_HEALTH_LUA, { status: { sync: { status: 'Synced' }, health: { status: 'Degraded', message: 'boom' } } }))
      .toEqual({ status: 'Degraded', message: 'boom' });
  });
  luaTest('Progressing without status', () => {
    expect(health(APPLICATION_HEALTH_LUA, { metadata: { name: 'x' } }).status).toBe('Progressing');
  });
});

describe('CNPG Database health check', () => {
  const meta = { name: 'temporal', generation: 2 };
  luaTest('Healthy only when the current generation is applied', () => {
    expect(health(CNPG_DATABASE_HEALTH_LUA, { metadata: meta, status: { applied: true, observedGeneration: 2 } }))
      .toEqual({ status: 'Healthy', message: 'Database applied' });
    expect(health(CNPG_DATABASE_HEALTH_LUA, { metadata: meta, status: { applied: true, observedGeneration: 1 } }))
      .toEqual({ status: 'Progressing', message: 'Waiting for CloudNativePG to observe generation 2' });
  });
  luaTest('Degraded with CNPG\'s message when applying failed', () => {
    expect(health(CNPG_DATABASE_HEALTH_LUA, {
      metadata: meta, status: { applied: false, observedGeneration: 2, message: 'role "temporal" does not exist' },
    })).toEqual({ status: 'Degraded', message: 'role "temporal" does not exist' });
  });
  luaTest('Progressing before CNPG reports anything, and while deleting', () => {
    expect(health(CNPG_DATABASE_HEALTH_LUA, { metadata: meta }).status).toBe('Progressing');
    expect(health(CNPG_DATABASE_HEALTH_LUA, { metadata: { ...meta, deletionTimestamp: 'x' }, status: { applied: true, observedGeneration: 2 } }))
      .toEqual({ status: 'Progressing', message: 'The database is being deleted' });
  });
});

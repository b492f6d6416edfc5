import { spawnSync } from 'child_process';
import * as path from 'path';
import type { CommandOptions } from '../../lib/cli/args';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { runPlan } from '../../lib/cli/run-plan';
import { run as runCommand } from './command';
import { findTool, testWith } from '../tools';

const LUA = findTool('lua5.1', ['lua5.1'], '-v');

const root = path.resolve(__dirname, '../..');
const ANSI = /\x1b\[/;

type Color = CommandOptions['plan']['color'];

function run(color: Color, isTTY: boolean, env: Record<string, string> = {}, config: HomelabConfig = REFERENCE_HOMELAB) {
  let stdout = '';
  let stderr = '';
  const code = runPlan(config, { color }, {
    stdout: { write: (t: string) => { stdout += t; } },
    stderr: { write: (t: string) => { stderr += t; } },
    isTTY,
    env,
  });
  return { code, stdout, stderr };
}

describe('runPlan', () => {
  test('colours on a terminal only', () => {
    expect(run('auto', true).stdout).toMatch(ANSI);
    const piped = run('auto', false);
    expect(piped.code).toBe(0);
    expect(piped.stdout).not.toMatch(ANSI);
    expect(piped.stdout).toMatch(/^Homelab plan/);
  });

  test('honours NO_COLOR on a terminal, and --no-color / --color', () => {
    expect(run('auto', true, { NO_COLOR: '1' }).stdout).not.toMatch(ANSI);
    expect(run('never', true).stdout).not.toMatch(ANSI);
    expect(run('always', false).stdout).toMatch(ANSI);
  });

  test('fails with every config problem on an invalid config', () => {
    const r = run('auto', false, {}, { ...REFERENCE_HOMELAB, databases: { postgres: { cluster: 'nope', owner: 'app' } } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^The homelab config has 3 problems:\n/);
    expect(r.stdout).toBe('');
  });
});

// The real entry point (package.json's plan script: lib/cli/plan.ts under tsx) in child processes, stdout
// piped. Each spawn is asserted on every facet it shows; what does not need a process is tested through runPlan()
// above, and the command line through parseCommandLine (test/cli/args.test.ts).
describe('plan command', () => {
  const plan = (args: string[], env: Record<string, string> = {}) => runCommand('plan', args, env);
  const uncoloured = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

  // `npm run plan`, as the README shows it (without colour: its stdout is a pipe). test/readme.test.ts checks
  // that package.json maps it to lib/cli/plan.ts.
  let npmPlan: ReturnType<typeof spawnSync>;
  beforeAll(() => {
    npmPlan = spawnSync('npm', ['run', '--silent', 'plan'], { cwd: root, encoding: 'utf8' });
  });

  test('prints the plan, without colour when piped, within 80 columns', () => {
    const stdout = String(npmPlan.stdout);
    expect(npmPlan.stderr).toBe('');
    expect(npmPlan.status).toBe(0);
    expect(stdout).not.toMatch(ANSI);
    expect(stdout).toContain('Phase 0: bootstrap steps');
    expect(stdout.split('\n').filter((l) => l.length > 80)).toEqual([]);
  });

  test('npm run plan exits 0', () => {
    expect(npmPlan.status).toBe(0);
    expect(String(npmPlan.stdout)).toContain('Phase 2: cutover from the GitHub seed to Forgejo');
    expect(String(npmPlan.stdout)).not.toMatch(ANSI);
  });

  test('--color colours even when piped', () => {
    const r = plan(['--color']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(ANSI);
    expect(uncoloured(r.stdout)).toContain('Phase 0: bootstrap steps');
  });

  // A committed invalid config: the default config is valid, so its report proves the module was swapped.
  describe('--config test/fixtures/configs/invalid-databases.config.ts', () => {
    let r: ReturnType<typeof plan>;
    beforeAll(() => { r = plan(['--config', 'test/fixtures/configs/invalid-databases.config.ts']); });

    test('--config swaps the config module', () => {
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('  - databases.postgres.cluster: unknown postgres cluster \'nope\'.');
    });

    test('exits 1 with the problems of an invalid config', () => {
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^The homelab config has 3 problems:\n/);
      expect(r.stdout).toBe('');
    });
  });
});

describe('runPlan --scenario: a simulated bring-up of this homelab', () => {
  const scenario = (name: string, config: HomelabConfig = REFERENCE_HOMELAB) => {
    let stdout = '';
    let stderr = '';
    const code = runPlan(config, { color: 'never', scenario: name }, {
      stdout: { write: (t: string) => { stdout += t; } },
      stderr: { write: (t: string) => { stderr += t; } },
      isTTY: false,
      env: {},
    });
    return { code, stdout, stderr };
  };

  test('list names every scenario of the homelab', () => {
    const r = scenario('list');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Scenarios of this homelab (npm run plan -- --scenario <name>):');
    expect(r.stdout).toMatch(/^ {2}happy-path +every controller does its job$/m);
    expect(r.stdout).toMatch(/^ {2}age-key-missing +/m);
  });

  test('fails with exit 2 for an unknown scenario, listing the known ones', () => {
    const r = scenario('nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^plan: no scenario 'nope'\. This homelab has:\n {2}happy-path/);
  });

  testWith(LUA)('prints the timeline and how a failure scenario ended, naming the cause', () => {
    const r = scenario('cluster-invalid-argocd');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Scenario cluster-invalid-argocd: CNPG rejects the definition of Cluster ddb\/ddb-cluster\n\n\+0:00:00 /);
    expect(r.stdout).toMatch(/\nEnded Failed at argocd\/root: .*\(Cluster ddb\/ddb-cluster: Invalid cluster definition: /);
  });

  testWith(LUA)('the happy path ends Healthy', () => {
    const r = scenario('happy-path');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nEnded Healthy at argocd\/root: /);
  });
});

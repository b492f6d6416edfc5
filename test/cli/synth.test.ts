import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { readTree } from '../../lib/output/output-tree';
import { synthesizeToDisk, unmaintainedPinsWarning } from '../../lib/cli/synth';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { root, run } from './command';

// These tests run the real entry point (package.json's synth script: main.ts under tsx) in child processes.
const synth = (args: string[], env: Record<string, string> = {}) => run('synth', args, env);

describe('synth entry point', () => {
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-test-')); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('output is byte-identical across processes, time zones and locales', () => {
    // GIVEN this process's time zone and locale (the test runner's), and a child's far from them
    expect(process.env.TZ).not.toBe('Pacific/Kiritimati');
    expect(synthesizeToDisk(REFERENCE_HOMELAB, { outdir: path.join(tmp, 'a') }).exitCode).toBe(0);
    // (run as `cdk8s synth` runs the app: CDK8S_OUTDIR names the CLI's own output folder)
    const b = synth(['--out', path.join(tmp, 'b')],
      { TZ: 'Pacific/Kiritimati', LANG: 'de_DE.UTF-8', LC_ALL: 'tr_TR.UTF-8', CDK8S_OUTDIR: path.join(tmp, 'cli') });
    // THEN the real entry point writes exactly what lib/ writes here, into --out and a copy for the cdk8s CLI
    // (stderr: only the pins that get no more fixes, said on every synthesis)
    expect([b.status, b.stderr]).toEqual([0, unmaintainedPinsWarning(synthesizeHomelab(REFERENCE_HOMELAB).plan.pins)]);
    const ta = readTree(path.join(tmp, 'a'));
    expect(ta.size).toBeGreaterThan(5);
    expect([...readTree(path.join(tmp, 'b')).entries()]).toEqual([...ta.entries()]);
    expect([...readTree(path.join(tmp, 'cli')).entries()]).toEqual([...ta.entries()]);
  });

  test('--check exits 1 with a summary when the output folder differs, 0 when it matches', () => {
    const out = path.join(tmp, 'dist');
    expect(synthesizeToDisk(REFERENCE_HOMELAB, { outdir: out }).exitCode).toBe(0);
    expect(synthesizeToDisk(REFERENCE_HOMELAB, { outdir: out, check: true })).toEqual({
      exitCode: 0, stdout: `${out}/ matches the config (${readTree(out).size} files).\n`, stderr: '',
    });
    fs.appendFileSync(path.join(out, 'bootstrap', '01-namespaces.yaml'), 'extra: line\n');
    fs.writeFileSync(path.join(out, 'stale.yaml'), 'x: 1\n');
    const result = synthesizeToDisk(REFERENCE_HOMELAB, { outdir: out, check: true });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe([
      `${out}/ is out of date with the config:`,
      '  - stale.yaml (no longer generated)',
      '  ~ bootstrap/01-namespaces.yaml (1 line differ)',
      `Run \`npm run synth\`, review the diff of ${out}/ and commit it.`,
      '',
    ].join('\n'));
  });
});

// An invalid config file: the report of every problem, and the previous output untouched (the broken config
// files that do not even load are in test/cli/load-config.test.ts).
describe('synth entry point with an invalid --config file', () => {
  let tmp: string;
  let out: string;
  let failed: ReturnType<typeof synth>;
  let failedTree: [string, string][];
  let failedDir: string[];
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-test-'));
    out = path.join(tmp, 'dist');
    const config = path.join(tmp, 'my.config.ts');
    const defaults = `import { REFERENCE_HOMELAB } from '${path.join(root, 'lib/config/defaults')}';`;
    // GIVEN a previous output and a config with two problems
    fs.mkdirSync(path.join(out, 'bootstrap'), { recursive: true });
    fs.writeFileSync(path.join(out, 'bootstrap', 'keep.yaml'), 'previous: output\n');
    fs.writeFileSync(config, [
      defaults,
      'export default { ...REFERENCE_HOMELAB, databases: { postgres: { cluster: \'nope\', owner: \'app\' } } };',
    ].join('\n'));
    // WHEN it is synthesized
    failed = synth(['--config', config, '--out', out]);
    failedTree = [...readTree(out).entries()];
    failedDir = fs.readdirSync(tmp).sort();
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('a failed synth prints every problem and leaves the previous output untouched', () => {
    expect(failed.status).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toBe([
      'The homelab config has 3 problems:',
      '  - databases.postgres: \'postgres\' is reserved by PostgreSQL and must not be managed by CNPG; choose another name.',
      '  - databases.postgres.cluster: unknown postgres cluster \'nope\'. Declare it under \'postgresClusters\' or use one of: ddb-cluster, forgejo-db.',
      // Temporal's databases are gone too: reported in the same round, not after the first two are fixed.
      '  - argocd.temporal: databases \'temporal\' and \'temporal_visibility\' must both be keys of databases on cluster \'ddb-cluster\'. ' +
        'Declare them under databases with cluster: \'ddb-cluster\'.',
      '',
      `Nothing was written; ${out}/ is unchanged.`,
      '',
    ].join('\n'));
    expect(failedTree).toEqual([['bootstrap/keep.yaml', 'previous: output\n']]);
    expect(failedDir).toEqual(['dist', 'my.config.ts']);
  });
});

import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { readTree } from '../../lib/synth/output-tree';
import { synthesizeToDisk } from '../../lib/synth/run-synth';

// These tests run the real entry point (scripts/run-app.js → main.ts) in child processes.
const root = path.resolve(__dirname, '../..');

function synth(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [path.join(root, 'scripts/run-app.js'), ...args], {
    cwd: root, env: { ...process.env, ...env }, encoding: 'utf8',
  });
}

describe('synth entry point', () => {
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-test-')); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('output is byte-identical across runs, time zones and locales', () => {
    const a = synth(['--out', path.join(tmp, 'a')], { TZ: 'UTC', LANG: 'C', LC_ALL: 'C' });
    const b = synth(['--out', path.join(tmp, 'b')], { TZ: 'Pacific/Kiritimati', LANG: 'de_DE.UTF-8', LC_ALL: 'tr_TR.UTF-8' });
    expect(a.status).toBe(0);
    expect(b.status).toBe(0);
    const ta = readTree(path.join(tmp, 'a'));
    expect(ta.size).toBeGreaterThan(5);
    expect([...readTree(path.join(tmp, 'b')).entries()]).toEqual([...ta.entries()]);
  });

  test('a failed synth prints every problem and leaves the previous output untouched', () => {
    // GIVEN a previous output and a config with two problems
    const out = path.join(tmp, 'dist');
    fs.mkdirSync(path.join(out, 'bootstrap'), { recursive: true });
    fs.writeFileSync(path.join(out, 'bootstrap', 'keep.yaml'), 'previous: output\n');
    const bad = path.join(tmp, 'bad.config.ts');
    fs.writeFileSync(bad, [
      `import { REFERENCE_HOMELAB } from '${path.join(root, 'lib/config/defaults')}';`,
      'export default { ...REFERENCE_HOMELAB, databases: { postgres: { cluster: \'nope\', owner: \'app\' } } };',
    ].join('\n'));
    // WHEN
    const result = synth(['--config', bad, '--out', out]);
    // THEN
    expect(result.status).toBe(1);
    expect(result.stderr).toBe([
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
    expect([...readTree(out).entries()]).toEqual([['bootstrap/keep.yaml', 'previous: output\n']]);
    expect(fs.readdirSync(tmp).sort()).toEqual(['bad.config.ts', 'dist']);
  });

  test('--check exits 1 with a summary when the output folder differs, 0 when it matches', () => {
    const out = path.join(tmp, 'dist');
    expect(synthesizeToDisk(REFERENCE_HOMELAB, ['--out', out]).exitCode).toBe(0);
    expect(synthesizeToDisk(REFERENCE_HOMELAB, ['--out', out, '--check'])).toEqual({
      exitCode: 0, stdout: `${out}/ matches the config (${readTree(out).size} files).\n`, stderr: '',
    });
    fs.appendFileSync(path.join(out, 'bootstrap', '01-namespaces.yaml'), 'extra: line\n');
    fs.writeFileSync(path.join(out, 'stale.yaml'), 'x: 1\n');
    const result = synthesizeToDisk(REFERENCE_HOMELAB, ['--out', out, '--check']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe([
      `${out}/ is out of date with the config:`,
      '  - stale.yaml (no longer generated)',
      '  ~ bootstrap/01-namespaces.yaml (1 line differ)',
      `Run \`npm run synth\`, review the diff of ${out}/ and commit it.`,
      '',
    ].join('\n'));
  });

  test('a changed config file is never served from the bundle cache', () => {
    // GIVEN a config file, synthesized once (and cached)
    const config = path.join(tmp, 'my.config.ts');
    const write = (seed: string) => fs.writeFileSync(config, [
      `import { REFERENCE_HOMELAB } from '${path.join(root, 'lib/config/defaults')}';`,
      `export default { ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, githubSeedUrl: '${seed}' } };`,
    ].join('\n'));
    write('git@github.com:first/homelab.git');
    expect(synth(['--config', config, '--out', path.join(tmp, 'a')]).status).toBe(0);
    // WHEN the file changes
    write('git@github.com:second-owner/homelab.git');
    expect(synth(['--config', config, '--out', path.join(tmp, 'b')]).status).toBe(0);
    // THEN the second synthesis used it
    expect(readTree(path.join(tmp, 'b')).get('argocd/root/root.yaml')).toContain('git@github.com:second-owner/homelab.git');
  });

  test('rejects an unknown argument with exit code 2', () => {
    const result = synthesizeToDisk(REFERENCE_HOMELAB, ['--outdir', 'x']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('unknown argument \'--outdir\'. Usage: synth [--config <file.ts>] [--out <dir>] [--check]\n');
  });
});

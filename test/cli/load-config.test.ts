import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readTree } from '../../lib/output/output-tree';
import { Ran, root, start } from './command';

// Broken config files through the real commands (package.json's scripts, spawned together): one line naming the
// file and the fix on stderr, exit 1, no stack trace, and the previous --out folder exactly as it was.
const DEFAULTS = `import { REFERENCE_HOMELAB } from '${path.join(root, 'lib/config/defaults')}';`;
const CASES: Record<string, { body?: string; stderr: (file: string) => string }> = {
  'missing.config.ts': {
    stderr: (f) => `${f}: no such file (in ${path.dirname(f)}). Create it, or pass the config with --config <file.ts>.\n`,
  },
  'syntax.config.ts': {
    body: `${DEFAULTS}\nconst config = {\n  ...REFERENCE_HOMELAB,\n  git: ,\n};\nexport default config;\n`,
    stderr: (f) => `${f}: failed to load: Unexpected "," (line 4:7)\n`,
  },
  'throws.config.ts': {
    body: `${DEFAULTS}\nconst token: string | undefined = undefined;\nif (!token) throw new Error('FORGEJO_TOKEN is not set\\nsecond line');\nexport default REFERENCE_HOMELAB;\n`,
    stderr: (f) => `${f}: failed to load: FORGEJO_TOKEN is not set (line 3:19)\n`,
  },
  'no-default.config.ts': {
    body: `${DEFAULTS}\nexport const config = { ...REFERENCE_HOMELAB };\n`,
    stderr: (f) => `${f}: has no default export. Add \`export default config;\` (config: HomelabConfig).\n`,
  },
  'not-object.config.ts': {
    body: 'export default \'homelab\';\n',
    stderr: (f) => `${f}: the default export is a string, not a config object. Export the HomelabConfig object: \`export default config;\`.\n`,
  },
};

describe('a config file that cannot be loaded', () => {
  let tmp: string;
  let out: string;
  let previous: [string, string][];
  const runs = new Map<string, Ran>();
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'load-config-'));
    // GIVEN a previous output folder
    out = path.join(tmp, 'dist');
    fs.mkdirSync(path.join(out, 'bootstrap'), { recursive: true });
    fs.writeFileSync(path.join(out, 'bootstrap', 'keep.yaml'), 'previous: output\n');
    previous = [...readTree(out).entries()];
    for (const [name, c] of Object.entries(CASES)) if (c.body !== undefined) fs.writeFileSync(path.join(tmp, name), c.body);
    // WHEN synth, plan and coverage load the broken files
    const file = (name: string) => path.join(tmp, name);
    const started: [string, Promise<Ran>][] = [
      ...Object.keys(CASES).map((name): [string, Promise<Ran>] => [`synth ${name}`, start('synth', ['--config', file(name), '--out', out])]),
      ['plan no-default.config.ts', start('plan', ['--config', file('no-default.config.ts')])],
      ['coverage syntax.config.ts', start('coverage', ['--repo', tmp, '--config', file('syntax.config.ts')])],
    ];
    for (const [key, p] of started) runs.set(key, await p);
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test.each(Object.keys(CASES))('synth --config %s: one line naming the file and the fix, exit 1, output untouched', (name) => {
    const r = runs.get(`synth ${name}`)!;
    expect([r.status, r.stdout, r.stderr]).toEqual([1, '', CASES[name].stderr(path.join(tmp, name))]);
    expect([...readTree(out).entries()]).toEqual(previous);
  });

  test('plan and coverage load the config the same way, with the same messages', () => {
    const plan = runs.get('plan no-default.config.ts')!;
    expect([plan.status, plan.stdout, plan.stderr]).toEqual([1, '', CASES['no-default.config.ts'].stderr(path.join(tmp, 'no-default.config.ts'))]);
    const coverage = runs.get('coverage syntax.config.ts')!;
    expect([coverage.status, coverage.stdout, coverage.stderr]).toEqual([1, '', CASES['syntax.config.ts'].stderr(path.join(tmp, 'syntax.config.ts'))]);
  });

  test('the temporary folder holds only the configs and the untouched output', () => {
    expect(fs.readdirSync(tmp).sort()).toEqual(['dist', ...Object.keys(CASES).filter((n) => CASES[n].body !== undefined)].sort());
  });
});

import * as path from 'path';
import { parseCommandLine, USAGE } from '../../lib/cli/args';

const usageError = (command: keyof typeof USAGE, problem: string) =>
  ({ kind: 'exit', exitCode: 2, stdout: '', stderr: `${command}: ${problem}\n${USAGE[command]}\n` });

describe('parseCommandLine', () => {
  test('defaults: homelab.config.ts in the working directory, dist/, auto colour', () => {
    expect(parseCommandLine('synth', [])).toEqual({ kind: 'run', options: { config: 'homelab.config.ts', out: 'dist', check: false } });
    expect(parseCommandLine('plan', [])).toEqual({ kind: 'run', options: { config: 'homelab.config.ts', color: 'auto' } });
  });

  test('every command takes --config, in both spellings', () => {
    expect(parseCommandLine('synth', ['--config', 'a.ts', '--out=x', '--check']))
      .toEqual({ kind: 'run', options: { config: 'a.ts', out: 'x', check: true } });
    expect(parseCommandLine('plan', ['--config=b.ts'])).toMatchObject({ options: { config: 'b.ts' } });
    expect(parseCommandLine('coverage', ['--repo', 'r', '--config', 'c.ts', '--json']))
      .toEqual({ kind: 'run', options: { config: 'c.ts', repo: 'r', json: true } });
  });

  test('the last of --color and --no-color wins', () => {
    expect(parseCommandLine('plan', ['--color'])).toMatchObject({ options: { color: 'always' } });
    expect(parseCommandLine('plan', ['--color', '--no-color'])).toMatchObject({ options: { color: 'never' } });
    expect(parseCommandLine('plan', ['--no-color', '--color'])).toMatchObject({ options: { color: 'always' } });
    expect(parseCommandLine('plan', ['--scenario', 'happy-path'])).toMatchObject({ options: { scenario: 'happy-path' } });
    expect(parseCommandLine('plan', ['--scenario'])).toEqual(usageError('plan', '--scenario needs a value.'));
  });

  test('--help and -h print the usage and what the command does, exit 0', () => {
    for (const command of ['synth', 'plan', 'coverage'] as const) {
      const r = parseCommandLine(command, ['-h']);
      expect(r).toMatchObject({ kind: 'exit', exitCode: 0, stderr: '' });
      expect(r.kind === 'exit' && r.stdout.startsWith(`${USAGE[command]}\n\n`)).toBe(true);
      expect(parseCommandLine(command, ['--help'])).toEqual(r);
    }
  });

  test('usage errors exit 2 with the problem and the usage line', () => {
    expect(parseCommandLine('synth', ['--outdir', 'x'])).toEqual(usageError('synth', 'unknown option \'--outdir\'.'));
    expect(parseCommandLine('synth', ['x'])).toEqual(usageError('synth', 'unexpected argument \'x\'.'));
    expect(parseCommandLine('synth', ['--out'])).toEqual(usageError('synth', '--out needs a value.'));
    expect(parseCommandLine('synth', ['--config', '--check'])).toEqual(usageError('synth', '--config needs a value.'));
    expect(parseCommandLine('synth', ['--config='])).toEqual(usageError('synth', '--config needs a value.'));
    expect(parseCommandLine('synth', ['--check=yes'])).toEqual(usageError('synth', '--check takes no value.'));
    expect(parseCommandLine('plan', ['--nope'])).toEqual(usageError('plan', 'unknown option \'--nope\'.'));
    expect(parseCommandLine('coverage', ['--repo', '.', '-v'])).toEqual(usageError('coverage', 'unknown option \'-v\'.'));
  });

  test('coverage needs --repo with a path', () => {
    expect(parseCommandLine('coverage', [])).toEqual(usageError('coverage', 'missing --repo <path to a homelab checkout>.'));
    expect(parseCommandLine('coverage', ['--json'])).toEqual(usageError('coverage', 'missing --repo <path to a homelab checkout>.'));
    expect(parseCommandLine('coverage', ['--repo'])).toEqual(usageError('coverage', '--repo needs a value.'));
    expect(parseCommandLine('coverage', ['--repo', '--json'])).toEqual(usageError('coverage', '--repo needs a value.'));
    expect(parseCommandLine('coverage', ['--repo='])).toEqual(usageError('coverage', '--repo needs a value.'));
  });

  test('under `npm run <command>`, a typed relative path is the caller\'s (INIT_CWD); defaults stay in the project', () => {
    const env = { npm_lifecycle_event: 'synth', INIT_CWD: '/home/me/elsewhere' };
    expect(parseCommandLine('synth', ['--config', 'my.config.ts', '--out', '/abs/out'], env)).toEqual({ kind: 'run',
      options: { config: path.resolve('/home/me/elsewhere', 'my.config.ts'), out: '/abs/out', check: false } });
    expect(parseCommandLine('synth', [], env)).toMatchObject({ options: { config: 'homelab.config.ts', out: 'dist' } });
    // another npm script (e.g. `npm test` spawning a command) does not move the paths
    expect(parseCommandLine('coverage', ['--repo', 'r'], { ...env, npm_lifecycle_event: 'test' })).toMatchObject({ options: { repo: 'r' } });
  });
});

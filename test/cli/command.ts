import { execFile, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** The project root: every command runs there, as under `npm run`. */
export const root = path.resolve(__dirname, '../..');

const scripts: Record<string, string> = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;

/** The command line of `npm run <name>` (package.json), with this test's Node: the real entry point without npm's start. */
export function commandOf(name: 'synth' | 'plan' | 'coverage'): string[] {
  const words = scripts[name].split(' ');
  if (words[0] !== 'node') throw new Error(`package.json script ${name} does not start with node: ${scripts[name]}`);
  return [process.execPath, ...words.slice(1)];
}

export interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const all: NodeJS.ProcessEnv = { ...process.env, ...env };
  // Relative paths mean the caller's directory only under `npm run <command>` (INIT_CWD); these runs are direct.
  delete all.npm_lifecycle_event;
  return all;
}

/** Runs `npm run <name> -- <args>` the way npm would (without npm), and waits. */
export function run(name: 'synth' | 'plan' | 'coverage', args: string[], env: Record<string, string> = {}): Ran {
  const [node, ...rest] = commandOf(name);
  const r = spawnSync(node, [...rest, ...args], { cwd: root, env: environment(env), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `run` without blocking, so a test file can start its processes together. */
export function start(name: 'synth' | 'plan' | 'coverage', args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const [node, ...rest] = commandOf(name);
  return new Promise((resolve) => {
    execFile(node, [...rest, ...args], { cwd: root, env: environment(env), encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status: code, stdout, stderr });
    });
  });
}

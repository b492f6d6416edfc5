// Runs the generated runbook (bootstrap/bootstrap.sh) as an operator would: bash, the real kubectl of the
// test's release first on PATH, KUBECONFIG pointing at the test control plane, key files generated for the
// run (never the operator's). Nothing in the runbook is replaced; what stands in for a cluster's controllers
// is the StatusWriter, and what stands in for programs that need a network (helm charts, git, a pod to exec
// into) is a recording stand-in named in `standIns`.
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ControlPlane } from './control-plane';

export interface RunbookEnv {
  readonly env: NodeJS.ProcessEnv;
  readonly dir: string;
}

/** A bin folder with the built kubectl first on PATH, and an age identity and SSH deploy key made for the run. */
export function runbookEnv(plane: ControlPlane, extra: NodeJS.ProcessEnv = {}): RunbookEnv {
  const dir = path.join(plane.dir, 'runbook');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.rmSync(path.join(bin, 'kubectl'), { force: true });
  fs.symlinkSync(plane.binaries.kubectl, path.join(bin, 'kubectl'));
  const age = path.join(dir, 'age-keys.txt');
  // The shape `age-keygen` writes (bech32, upper case); the runbook checks the format, SOPS would decrypt with it.
  fs.writeFileSync(age, '# created: test\n# public key: age1test\nAGE-SECRET-KEY-1' + 'QXYZ'.repeat(14) + 'QX\n', { mode: 0o600 });
  const deployKey = path.join(dir, 'seed_deploy_key');
  if (!fs.existsSync(deployKey)) {
    const r = spawnSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', deployKey], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl genpkey failed: ${r.stderr}`);
    fs.chmodSync(deployKey, 0o600);
  }
  return {
    dir,
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      KUBECONFIG: plane.kubeconfig,
      SOPS_AGE_KEY_FILE: age,
      SEED_DEPLOY_KEY: deployKey,
      LANG: 'C.UTF-8',
      ...extra,
    },
  };
}

export interface RunResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
  /** The step the run was killed in, when it was. */
  readonly killedAt?: number;
}

/** `[k/N] name:` headers the runbook printed, as step numbers. */
export function stepsStarted(output: string): number[] {
  return [...output.matchAll(/^\[(\d+)\/\d+\] /gm)].map((m) => Number(m[1]));
}

/**
 * Runs `bash bootstrap.sh --yes` in `tree`. With `killAtStep`, the whole process group is killed (SIGKILL, as a
 * lost SSH session or a power cut would) `killDelayMs` after that step's header appears, mid-step.
 */
export function runRunbook(tree: string, env: RunbookEnv, options: { killAtStep?: number; killDelayMs?: number; args?: string[]; timeoutMs?: number } = {}): Promise<RunResult> {
  const script = path.join(tree, 'bootstrap', 'bootstrap.sh');
  return new Promise((resolve) => {
    const child: ChildProcess = spawn('bash', [script, '--yes', ...(options.args ?? [])], {
      cwd: env.dir, env: env.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    let output = '';
    let killedAt: number | undefined;
    const kill = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => { output += `\n[test] timed out after ${(options.timeoutMs ?? 300_000) / 1000} s\n`; kill(); }, options.timeoutMs ?? 300_000);
    const onData = (c: Buffer): void => {
      output += c.toString();
      if (options.killAtStep !== undefined && killedAt === undefined && stepsStarted(output).includes(options.killAtStep)) {
        killedAt = options.killAtStep;
        setTimeout(kill, options.killDelayMs ?? 0);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, output, ...(killedAt === undefined ? {} : { killedAt }) });
    });
  });
}

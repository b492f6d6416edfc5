import type { HomelabConfig } from '../config/homelab-config';
import { CommandName, CommandOptions, parseCommandLine } from './args';
import { ConfigLoadError, loadConfigFile } from './load-config';

/** What a command did: its exit code and what it printed (a command may also write to the process itself). */
export interface CommandResult {
  readonly exitCode: number;
  readonly stdout?: string;
  readonly stderr?: string;
}

/**
 * Runs `command` the way every entry point does: parses `argv` (help: exit 0, usage error: exit 2), loads the
 * config file (exit 1 with one line naming the file and the fix), then `body`. Sets the process's exit code
 * and never throws for a wrong command line or config file; nothing has been written when those fail.
 */
export function runCli<C extends CommandName>(
  command: C, argv: readonly string[], body: (config: HomelabConfig, options: CommandOptions[C]) => CommandResult,
): void {
  const line = parseCommandLine(command, argv, process.env);
  if (line.kind === 'exit') return finish(line);
  let config: HomelabConfig;
  try {
    config = loadConfigFile(line.options.config);
  } catch (e) {
    if (!(e instanceof ConfigLoadError)) throw e;
    return finish({ exitCode: 1, stderr: `${e.message}\n` });
  }
  finish(body(config, line.options));
}

function finish(result: CommandResult): void {
  if (result.stdout) process.stdout.write(result.stdout);
  if (result.stderr) process.stderr.write(result.stderr);
  process.exitCode = result.exitCode;
}

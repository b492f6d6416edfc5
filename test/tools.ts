import { spawnSync } from 'child_process';

/** A command-line tool some tests run, looked up once, when the test file is collected. */
export interface Tool {
  /** What the tool is called in a skip reason (the Debian package installs it under this name). */
  readonly name: string;
  /** The command that runs it, or undefined when none of the candidates is installed. */
  readonly command: string | undefined;
}

/** The first of `candidates` that starts (`<candidate> <versionArg>` exits 0). */
export function findTool(name: string, candidates: readonly string[] = [name], versionArg = '--version'): Tool {
  const command = candidates.find((c) => {
    const r = spawnSync(c, [versionArg], { stdio: 'ignore' });
    return r.error === undefined && r.status === 0;
  });
  return { name, command };
}

/**
 * `test` when every tool is installed. Otherwise `test.skip`, with the missing tools in the test's name, so
 * the jest output shows the test as skipped and why, never as passed. `.ci/run` installs every tool
 * (scripts/install-tools.sh), so CI skips nothing.
 */
export function testWith(...tools: Tool[]): (name: string, fn: jest.ProvidesCallback, timeout?: number) => void {
  const missing = tools.filter((t) => t.command === undefined).map((t) => t.name);
  if (missing.length === 0) return test;
  return (name, fn, timeout) => test.skip(`${name} (skipped: ${missing.join(', ')} not installed)`, fn, timeout);
}

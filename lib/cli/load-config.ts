import * as fs from 'fs';
import * as path from 'path';
import type { HomelabConfig } from '../config/homelab-config';

/** A config file that could not be loaded; the message names the file and the fix, in one line. */
export class ConfigLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigLoadError';
  }
}

/**
 * Loads the default export of the TypeScript config module `file` (relative to the working directory, or
 * absolute). The process runs under tsx (`node --require tsx/cjs`, see package.json), so Node's own `require`
 * compiles the file; nothing is type-checked (that is `npm run typecheck`). The export is only checked to be an
 * object here: synthesis validates it field by field.
 *
 * Throws `ConfigLoadError` when the file does not exist, does not compile, throws while loading, has no default
 * export, or exports something other than an object.
 */
export function loadConfigFile(file: string): HomelabConfig {
  const abs = path.resolve(file);
  const stat = fs.statSync(abs, { throwIfNoEntry: false });
  if (stat === undefined) {
    throw new ConfigLoadError(`${file}: no such file (in ${path.dirname(abs)}). Create it, or pass the config with --config <file.ts>.`);
  }
  if (!stat.isFile()) throw new ConfigLoadError(`${file}: is not a file. Pass a TypeScript module with --config <file.ts>.`);
  let loaded: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(abs);
  } catch (e) {
    throw new ConfigLoadError(`${file}: failed to load: ${describeLoadError(e, abs)}`);
  }
  const exported = typeof loaded === 'object' && loaded !== null && 'default' in loaded
    ? (loaded as { default: unknown }).default : undefined;
  if (exported === undefined) {
    throw new ConfigLoadError(`${file}: has no default export. Add \`export default config;\` (config: HomelabConfig).`);
  }
  if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) {
    const what = exported === null ? 'null' : Array.isArray(exported) ? 'an array' : `a ${typeof exported}`;
    throw new ConfigLoadError(`${file}: the default export is ${what}, not a config object. ` +
      'Export the HomelabConfig object: `export default config;`.');
  }
  return exported as HomelabConfig;
}

/**
 * The first line of a load error, with where it happened when known: esbuild's `file:line:col: ERROR: text`
 * for a file that does not compile (tsx reports those), else the first stack frame outside node_modules and
 * Node's internals. The location is `line:col` in the config itself, or `path:line:col` in a file it imports.
 */
function describeLoadError(e: unknown, configAbs: string): string {
  const message = e instanceof Error ? e.message : String(e);
  const compile = /^(.+?):(\d+):(\d+): ERROR: (.*)$/m.exec(message);
  if (compile) return `${compile[4]} (${where(compile[1], compile[2], compile[3], configAbs)})`;
  const first = message.split('\n')[0];
  const stack = e instanceof Error ? e.stack ?? '' : '';
  for (const frame of stack.split('\n').slice(1)) {
    const m = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(frame);
    if (m && path.isAbsolute(m[1]) && !m[1].includes(`${path.sep}node_modules${path.sep}`)) {
      return `${first} (${where(m[1], m[2], m[3], configAbs)})`;
    }
  }
  return first;
}

function where(file: string, line: string, column: string, configAbs: string): string {
  const abs = path.resolve(file);
  return abs === configAbs ? `line ${line}:${column}` : `${path.relative(process.cwd(), abs)}:${line}:${column}`;
}

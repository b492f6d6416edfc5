import { spawnSync } from 'child_process';
import { HealthEvaluator, HealthResult, normalizeLuaResult } from './health';

/** Properties for `Lua51HealthEvaluator`. */
export interface Lua51HealthEvaluatorProps {
  /**
   * The Lua 5.1 interpreter to run.
   * @default 'lua5.1' (the Debian package of that name)
   */
  readonly command?: string;
}

/**
 * A `HealthEvaluator` that runs each script in a `lua5.1` process, inside an environment holding only what
 * Argo CD opens for health scripts: the base library, `table`, `package` and a safe `os` with `time` and `date`
 * (argo-cd v3.5.1 util/lua/lua.go:76-100; util/lua/oslib_safe.go:28-31). No `string`, `math`, `io` or `debug`
 * table is visible to the script. Two differences lua5.1 cannot remove: string values keep their `string`
 * metatable (`("x"):len()` works here, as it does in gopher-lua), and numbers are doubles in both.
 * Results are cached by script and object, so a simulation asks the interpreter once per distinct state.
 */
export class Lua51HealthEvaluator implements HealthEvaluator {
  public readonly command: string;
  private readonly cache = new Map<string, HealthResult>();

  constructor(props: Lua51HealthEvaluatorProps = {}) {
    this.command = props.command ?? 'lua5.1';
  }

  public evaluate(kind: string, luaScript: string, object: Record<string, unknown>): HealthResult {
    const key = `${luaScript}\u0000${JSON.stringify(object)}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const r = spawnSync(this.command, ['-'], { input: driver(luaScript, object), encoding: 'utf8' });
    if (r.error) throw new Error(`lua health check of ${kind}: cannot run '${this.command}': ${r.error.message}`);
    const out = r.stdout;
    const result = out.startsWith('ERR:')
      // A script error makes the health unknowable; gitops-engine turns the error into a failed health lookup
      // (sync_context.go:353-355, "failed to get resource health").
      ? { status: 'Unknown' as const, message: `failed to get resource health: ${out.slice(4).trim()}` }
      : parseResult(out, kind, r.stderr);
    this.cache.set(key, result);
    return result;
  }
}

function parseResult(out: string, kind: string, stderr: string): HealthResult {
  const m = /^OK:(\d+):/.exec(out);
  if (!m) throw new Error(`lua health check of ${kind}: unexpected interpreter output: ${out}${stderr}`);
  let rest = out.slice(m[0].length);
  const status = rest.slice(0, Number(m[1]));
  rest = rest.slice(status.length);
  const mm = /^:(\d+):/.exec(rest);
  const message = mm ? rest.slice(mm[0].length, mm[0].length + Number(mm[1])) : '';
  return normalizeLuaResult(status === '\u0000' ? undefined : status, message);
}

/** A Lua literal for a JSON value; null becomes nil, as gopher-lua's decodeValue leaves it (lua.go:122-123). */
export function toLuaLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (typeof v === 'string') return luaString(v);
  if (Array.isArray(v)) return `{${v.map(toLuaLiteral).join(',')}}`;
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== null && x !== undefined);
  return `{${entries.map(([k, x]) => `[${luaString(k)}]=${toLuaLiteral(x)}`).join(',')}}`;
}

function luaString(s: string): string {
  return `"${[...Buffer.from(s, 'utf8')].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('')}"`;
}

function driver(script: string, object: Record<string, unknown>): string {
  return `
local safe_os = { time = os.time, date = os.date }
local env = {
  assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = pcall, select = select,
  tonumber = tonumber, tostring = tostring, type = type, unpack = unpack, xpcall = xpcall, rawget = rawget,
  rawset = rawset, rawequal = rawequal, setmetatable = setmetatable, getmetatable = getmetatable,
  print = function() end, _VERSION = _VERSION, table = table, os = safe_os,
}
env.package = { loaded = { os = safe_os, table = table } }
env.require = function(name)
  local m = env.package.loaded[name]
  if m == nil then error("module '" .. tostring(name) .. "' not found") end
  return m
end
env._G = env
env.obj = ${toLuaLiteral(object)}
local fn, err = loadstring(${luaString(script)}, "health.lua")
if fn == nil then io.write("ERR:" .. err) return end
setfenv(fn, env)
local ok, hs = pcall(fn)
if not ok then io.write("ERR:" .. tostring(hs)) return end
local status, message = "\\0", ""
if type(hs) == "table" then
  if hs.status ~= nil then status = tostring(hs.status) end
  if hs.message ~= nil then message = tostring(hs.message) end
elseif hs ~= nil then
  io.write("ERR:expect table output from Lua script, not " .. type(hs)) return
end
io.write("OK:" .. #status .. ":" .. status .. ":" .. #message .. ":" .. message)
`;
}

/**
 * The edge of the program: any value in, the resolved config out, or a `ConfigError` that lists every
 * problem with its config path. Secrets in the config are reported by where they are, never echoed.
 */
import { z } from 'zod';
import { ConfigError, ConfigProblem, ProblemCollector } from '../shared/errors';
import { findSecrets, urlCredentialProblem } from '../shared/secrets';
import { configErrorMap, describe, unknownKeyMessage } from './messages';
import { ResolvedHomelabConfig, resolveDerivedDefaults } from './resolved';
import { ConfigRule, CONFIG_RULES } from './rules';
import { HomelabConfigShape } from './schema';

/** Options of `parseHomelabConfig`. */
export interface ParseOptions {
  /**
   * Rules of other sections (the Argo CD tree), run after `CONFIG_RULES` on the resolved config; their
   * problems are reported together with the config's own.
   * @default []
   */
  readonly extraRules?: readonly ConfigRule[];
}

/** The path of the whole config in messages. */
export const ROOT_PATH = '(config)';

/** Marks an issue raised by a rule of the table; its message and path are used as recorded. */
const RULE_MARK = 'homelab-config-rule';
/** Prefix of the error map's message for unknown keys, followed by the known keys as JSON. */
const KNOWN_KEYS = '\u0000known-keys:';

/** The full schema: the shape, the rule table and the derived defaults. */
export function homelabConfigSchema(extraRules: readonly ConfigRule[] = []) {
  return HomelabConfigShape.superRefine((shaped, ctx) => {
    const problems = new ProblemCollector();
    const resolved = resolveDerivedDefaults(shaped);
    for (const rule of [...CONFIG_RULES, ...extraRules]) rule.check(resolved, problems);
    for (const p of problems.all) ctx.addIssue({ code: 'custom', message: p.message, params: { [RULE_MARK]: p.path } });
  }).transform(resolveDerivedDefaults);
}

/** The schema of lib/config alone (without the rules of other sections). */
export const HomelabConfigSchema = homelabConfigSchema();

/** Renders a zod path the way the config is written: `argocd.applications.cilium.sources[0].version`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? ROOT_PATH : out;
}

/** Removes anything credential-like that a message might still carry (defence in depth; values are shown redacted). */
function scrub(message: string): string {
  return message
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@']*@/gi, '$1<credentials removed>@')
    .replace(/\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]+/g, '$1<redacted>');
}

/** The error map, with the known keys attached to unknown-key issues so that the nearest one can be named. */
const errorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'unrecognized_keys') {
    const shape = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape ?? {};
    return `${KNOWN_KEYS}${JSON.stringify(Object.keys(shape))}`;
  }
  return configErrorMap(issue);
};

/** Problems of one zod issue; an issue may stand for several keys. */
function issueProblems(issue: z.core.$ZodIssue, base: readonly PropertyKey[] = []): ConfigProblem[] {
  const path = [...base, ...issue.path];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known: string[] = issue.message.startsWith(KNOWN_KEYS) ? JSON.parse(issue.message.slice(KNOWN_KEYS.length)) : [];
      return issue.keys.map((key) => ({ path: formatPath([...path, key]), message: unknownKeyMessage(key, known) }));
    }
    case 'invalid_key':
      // A record key: its own issues carry the message, at the key's path.
      return issue.issues.flatMap((inner) => issueProblems(inner, path));
    default:
      return [{ path: formatPath(path), message: issue.message }];
  }
}

/** Where secrets are in the raw input: reported instead of anything else, so no message can echo one. */
function secretProblems(input: unknown): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const walk = (v: unknown, path: readonly PropertyKey[]): void => {
    if (typeof v === 'string') {
      for (const s of findSecrets(v)) {
        out.push({ path: formatPath(path), message: `contains ${s.what}. Never put secrets in the homelab config: it is committed and ` +
          `rendered into dist/. ${s.kind === 'github-token' ? 'Revoke the token on GitHub, then d' : 'D'}eliver it as a Secret ` +
          '(SOPS or a local file read at apply time) and reference the Secret by name.' });
      }
      const url = urlCredentialProblem(v);
      // A token in a URL is reported once, as a token.
      if (url !== undefined && findSecrets(v).length === 0) {
        out.push({ path: formatPath(path), message: `${url}; the value is not shown. Remove the credentials from the URL ` +
          '(the config is committed and rendered into dist/), rotate them if they were real, and deliver them as a Secret.' });
      }
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i]));
    } else if (typeof v === 'object' && v !== null) {
      for (const k of Object.keys(v).sort()) walk((v as Record<string, unknown>)[k], [...path, k]);
    }
  };
  walk(input, []);
  return out;
}

/** Orders problems by path, then message; stable for equal ones. */
function byPath(a: ConfigProblem, b: ConfigProblem): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

/**
 * Every problem of `input` as a config: the shape's problems (unknown keys, types, enums, names,
 * quantities...) sorted by path, then the rule table's in table order. Empty when the config is valid.
 */
export function configProblems(input: unknown, options: ParseOptions = {}): { problems: ConfigProblem[]; config?: ResolvedHomelabConfig } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { problems: [{ path: ROOT_PATH, message: `the config must be an object, got ${describe(input)}. Export it as ` +
      '`const config: HomelabConfig = { namespaces, postgresClusters, databases, forgejo, git, argocd }; export default config;`.' }] };
  }
  const secrets = secretProblems(input);
  if (secrets.length > 0) return { problems: secrets };
  const result = homelabConfigSchema(options.extraRules).safeParse(input, { error: errorMap });
  if (result.success) return { problems: [], config: result.data };
  const shape: ConfigProblem[] = [];
  const rules: ConfigProblem[] = [];
  for (const issue of result.error.issues) {
    const rulePath = issue.code === 'custom' ? (issue.params as Record<string, string> | undefined)?.[RULE_MARK] : undefined;
    if (rulePath !== undefined) rules.push({ path: rulePath, message: scrub(issue.message) });
    else shape.push(...issueProblems(issue).map((p) => ({ path: p.path, message: scrub(p.message) })));
  }
  const seen = new Set<string>();
  const unique = (p: ConfigProblem) => {
    const key = `${p.path}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  return { problems: [...shape.sort(byPath), ...rules].filter(unique) };
}

/**
 * Validates `input` as a homelab config and returns it with every default applied. Throws a `ConfigError`
 * listing every problem, each with its config path, when it is not valid.
 */
export function parseHomelabConfig(input: unknown, options: ParseOptions = {}): ResolvedHomelabConfig {
  const { problems, config } = configProblems(input, options);
  if (problems.length > 0 || config === undefined) throw new ConfigError(problems);
  return config;
}

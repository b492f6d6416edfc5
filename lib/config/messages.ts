/**
 * How the config schema words a problem: the path is put in front by the caller, the message names the value
 * (never a secret), what is allowed and the fix. One error map for every zod issue, so no field needs its own
 * wording for types, enums or unknown keys.
 */
import type { core } from 'zod';
import { findSecrets, urlCredentialProblem } from '../shared/secrets';

/** Whether `text` looks like a secret or carries credentials: such a value is never shown. */
export function looksSecret(text: string): boolean {
  return findSecrets(text).length > 0 || urlCredentialProblem(text) !== undefined;
}

/** A value as messages show it: strings quoted, long ones shortened, secrets never. */
export function show(value: unknown): string {
  if (typeof value === 'string') {
    if (looksSecret(value)) return 'a value that looks like a credential (not shown)';
    return value.length > 80 ? `'${value.slice(0, 77)}...'` : `'${value}'`;
  }
  return describe(value);
}

/** The type of `value` in words, with the value for scalars: `the number 3`, `an array`, `null`. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${show(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `the ${typeof value} ${String(value)}`;
  return `a${typeof value === 'object' ? 'n object' : ` ${typeof value}`}`;
}

/** Levenshtein distance, case-insensitive (a key in the wrong case is distance 0 and always suggested). */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[t.length];
}

/**
 * The known name nearest to `name`, when it is close enough to be a likely typo; a known name that contains
 * the typed one or is contained in it (`wave` for `syncWave`) counts as near.
 */
export function nearest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  let bestEdits = Infinity;
  const lower = name.toLowerCase();
  for (const k of [...known].sort()) {
    const kl = k.toLowerCase();
    const contained = lower.length >= 3 && (kl.includes(lower) || lower.includes(kl));
    const edits = distance(name, k);
    const d = contained ? Math.min(edits, 1) : edits;
    // on a tie the fewer real edits win: 'postgresCluster' is nearer 'postgresClusters' than 'cluster', which it contains
    if (d < bestDistance || (d === bestDistance && edits < bestEdits)) {
      best = k;
      bestDistance = d;
      bestEdits = edits;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** The message of an unknown key, with the nearest known key or the list of known keys. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const near = nearest(key, known);
  if (near !== undefined) return `unknown key; did you mean '${near}'?`;
  return `unknown key; allowed keys are ${[...known].sort().map((k) => `'${k}'`).join(', ') || 'none'}. Remove it or fix its name.`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string', number: 'a number', int: 'an integer', boolean: 'true or false', object: 'an object',
  array: 'an array', record: 'an object', bigint: 'an integer', never: 'nothing',
};

/** Allowed values as a list: `'retain', 'delete'`. */
function listValues(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(', ');
}

/**
 * The error map of the config schema. Issues that carry their own message (refinements) keep it; the rest get
 * a message in the project's style. Unknown keys are worded by `issuesToProblems`, which knows each key.
 */
export const configErrorMap: core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
      if (issue.input === undefined) return `is required; set it to ${expected}.`;
      return `must be ${expected}, got ${describe(issue.input)}.`;
    }
    case 'invalid_value': {
      const input = issue.input;
      const match = typeof input === 'string'
        ? issue.values.find((v) => typeof v === 'string' && v.toLowerCase() === input.toLowerCase()) : undefined;
      const hint = match !== undefined ? ` Values are case-sensitive: write '${String(match)}'.` : '';
      return `${show(input)} is not allowed; use one of ${listValues(issue.values)}.${hint}`;
    }
    case 'too_small':
      if (issue.origin === 'array' || issue.origin === 'string') return `must have at least ${String(issue.minimum)} ${issue.origin === 'array' ? 'entries' : 'characters'}.`;
      return `must be at least ${String(issue.minimum)}, got ${describe(issue.input)}.`;
    case 'too_big':
      if (issue.origin === 'array' || issue.origin === 'string') return `must have at most ${String(issue.maximum)} ${issue.origin === 'array' ? 'entries' : 'characters'}.`;
      return `must be at most ${String(issue.maximum)}, got ${describe(issue.input)}.`;
    case 'invalid_union':
      if ('discriminator' in issue && issue.discriminator !== undefined) {
        const options = (issue as { options?: unknown[] }).options ?? [];
        const input = issue.input;
        const value = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[issue.discriminator] : input;
        return `${show(value)} is not a valid ${issue.discriminator}; use one of ${listValues(options)}.`;
      }
      return `${show(issue.input)} matches none of the allowed forms.`;
    case 'unrecognized_keys':
      return 'unknown key.';
    default:
      return undefined;
  }
};

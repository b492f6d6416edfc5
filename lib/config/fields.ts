/**
 * Field schemas the config schema is built from: each one type plus the rule of the place where the value
 * lands (a namespace, an object name, a git ref, a quantity). The rules themselves live in lib/shared, once.
 */
import { z } from 'zod';
import { dnsLabelProblem, dnsSubdomainProblem, gitRefProblem, pgIdentifierProblem, reservedRoleProblem } from '../shared/names';
import { byteQuantityProblem, isPositiveQuantity, parseQuantity } from '../shared/quantity';
import { isGoDuration } from '../shared/duration';
import { urlCredentialProblem } from '../shared/secrets';
import { show } from './messages';
import { FIRST_SYNC_WAVE, LAST_SYNC_WAVE, SyncWave } from '../shared/sync-waves';

/** A string checked by `problem`, which returns the message (without the path) or undefined. */
export function checkedString(problem: (value: string) => string | undefined): z.ZodString {
  return z.string().superRefine((value, ctx) => {
    const message = problem(value);
    if (message !== undefined) ctx.addIssue({ code: 'custom', message, input: value });
  });
}

/** A namespace name (RFC 1123 label, at most 63 characters). */
export const namespaceName = checkedString((v) => namespaceNameProblem(v));

/** The name of a Kubernetes object that must be an RFC 1123 label of at most `max` characters. */
export function objectName(what: string, max = 63): z.ZodString {
  return checkedString(objectNameProblem(what, max));
}

/** The name of an object that must be an RFC 1123 subdomain (Secrets, StorageClasses). */
export function subdomainName(what: string): z.ZodString {
  return checkedString((v) => {
    const why = dnsSubdomainProblem(v);
    return why === undefined ? undefined : `${show(v)} is not a valid ${what}: ${why}.`;
  });
}

/** The name of a Secret (RFC 1123 subdomain). */
export const secretName = subdomainName('Secret name');

/** A key of a Secret's data: letters, digits, '-', '_' and '.'. */
export const secretKey = checkedString((v) => (/^[-._a-zA-Z0-9]{1,253}$/.test(v) ? undefined
  : `${show(v)} is not a valid Secret key: use letters, digits, '-', '_' and '.'.`));

/** A PostgreSQL identifier (database or role name) that needs no quoting. */
export const pgIdentifier = checkedString((v) => {
  const why = pgIdentifierProblem(v);
  return why === undefined ? undefined : `${show(v)} is not a valid PostgreSQL name: ${why}.`;
});

/** A role CNPG may manage: a PostgreSQL identifier that neither CNPG nor PostgreSQL reserves. */
export const pgRoleName = checkedString((v) => {
  const why = pgIdentifierProblem(v);
  if (why !== undefined) return `${show(v)} is not a valid PostgreSQL role name: ${why}.`;
  const reserved = reservedRoleProblem(v);
  return reserved === undefined ? undefined : `${show(v)} ${reserved}; choose another role name.`;
});

/** A branch or tag name. */
export const gitRef = checkedString((v) => {
  const why = gitRefProblem(v);
  return why === undefined ? undefined : `${show(v)} is not a valid git branch or tag: it ${why}. Use a name such as 'main' or 'v1.2.0'.`;
});

/** A URL or string that must carry no credentials. */
export const noCredentials = checkedString((v) => {
  const why = urlCredentialProblem(v);
  return why === undefined ? undefined : `${why}. Remove them from the config; deliver credentials as a Secret.`;
});

/** Options of `quantity`. */
interface QuantityOptions {
  /** Example in messages, e.g. `10Gi`. */
  readonly example: string;
  /** A byte count: the `m`, `u` and `n` suffixes are refused. */
  readonly bytes?: boolean;
}

/** A Kubernetes quantity greater than zero (a size, a request, a limit). */
export function quantity(options: QuantityOptions): z.ZodString {
  return checkedString((v) => {
    const q = parseQuantity(v);
    if (q === undefined) return `${show(v)} is not a Kubernetes quantity; write it like '${options.example}'.`;
    if (!isPositiveQuantity(q)) return `${show(v)} must be greater than zero; write it like '${options.example}'.`;
    const bytes = options.bytes ? byteQuantityProblem('memory', q.text, q) : undefined;
    return bytes === undefined ? undefined : `${bytes}.`;
  });
}

/** A repo-relative path inside the homelab repository, such as `k8s/generated`. */
export const repoRelativePath = checkedString((v) => (v === '' || v.startsWith('/') || v.split('/').includes('..') || v.endsWith('/')
  ? `${show(v)} must be a relative path inside the homelab repository, without '..' or a trailing '/', e.g. 'k8s/generated'.`
  : undefined));

const WAVES = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const satisfies readonly SyncWave[];

/** A wave of the wave table. */
export const syncWave = z.literal(WAVES, {
  error: (issue) => `syncWave must be an integer from ${FIRST_SYNC_WAVE} to ${LAST_SYNC_WAVE}, got ${JSON.stringify(issue.input) ?? 'nothing'}. ` +
    'Pick a wave from SYNC_WAVES (lib/shared/sync-waves.ts).',
});

/** A whole number of at least `min`. */
export function integer(min: number): z.ZodNumber {
  return z.number().superRefine((v, ctx) => {
    if (!Number.isInteger(v) || v < min) ctx.addIssue({ code: 'custom', message: `must be an integer of at least ${min}, got ${v}.` });
  });
}

/**
 * A record whose keys are checked by `problem` (which returns the message or undefined). The keys are checked
 * after the values, as a refinement, so a bad key never hides the rest of the config's problems.
 */
export function keyedRecord<V extends z.ZodType>(problem: (key: string) => string | undefined, value: V) {
  return z.record(z.string(), value).superRefine((record, ctx) => {
    for (const key of Object.keys(record).sort()) {
      const message = problem(key);
      if (message !== undefined) ctx.addIssue({ code: 'custom', message, path: [key] });
    }
  });
}

/** Why `v` is not a namespace name, as a full message; undefined when it is one. */
export function namespaceNameProblem(v: string): string | undefined {
  const why = dnsLabelProblem(v);
  return why === undefined ? undefined : `${show(v)} is not a valid namespace name: ${why}.`;
}

/** Why `v` is not an object name of at most `max` characters, as a full message; undefined when it is one. */
export function objectNameProblem(what: string, max: number): (v: string) => string | undefined {
  return (v) => {
    const why = dnsLabelProblem(v, max);
    return why === undefined ? undefined : `${show(v)} is not a valid ${what}: ${why}.`;
  };
}

/** A Go duration greater than zero (`10m0s`, `8h`). */
export const goDuration = checkedString((v) => (isGoDuration(v) && /[1-9]/.test(v) ? undefined
  : `${show(v)} is not a positive Go duration; write it like '10m0s' or '8h'.`));

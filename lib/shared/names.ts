/** Naming rules shared by config validation and constructs. Pure functions, no constructs. */

/** RFC 1123 label: what Kubernetes requires of namespace, Service and most object names. */
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** RFC 1035 label: an RFC 1123 label that starts with a letter (Service names). */
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** RFC 1123 subdomain: dot-separated RFC 1123 labels (ConfigMap, Secret and most object names), at most 253. */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** An unquoted PostgreSQL identifier that needs no quoting anywhere: lower case, digits, underscores. */
const PG_IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Databases PostgreSQL itself owns; CNPG must never manage them. */
export const RESERVED_DATABASE_NAMES: readonly string[] = ['postgres', 'template0', 'template1'];

/** Returns why `name` is not a valid RFC 1123 label (max 63), or undefined when it is. */
export function dnsLabelProblem(name: string, maxLength = 63): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > maxLength) return `must be at most ${maxLength} characters, got ${name.length}`;
  if (!DNS1123_LABEL.test(name)) {
    return 'must consist of lower case letters, digits and \'-\', and start and end with a letter or digit';
  }
  return undefined;
}

/** Returns why `name` is not a safe PostgreSQL identifier (max 63 bytes), or undefined when it is. */
export function pgIdentifierProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 63) return `must be at most 63 characters, got ${name.length}`;
  if (!PG_IDENTIFIER.test(name)) {
    return 'must consist of lower case letters, digits and \'_\', and start with a letter or \'_\'';
  }
  return undefined;
}

/** Returns why `name` is not a valid RFC 1123 subdomain (Secret and ConfigMap names), or undefined when it is. */
export function dnsSubdomainProblem(name: string, maxLength = 253): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > maxLength) return `must be at most ${maxLength} characters, got ${name.length}`;
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return 'must consist of lower case letters, digits, \'-\' and \'.\', and start and end with a letter or digit';
  }
  return undefined;
}

/**
 * Roles CNPG 1.30 creates and manages itself, which `spec.managed.roles` must not declare: the `postgres`
 * superuser, `streaming_replica` and `cnpg_pooler_pgbouncer` ("some reserved users, such as the postgres
 * superuser, streaming_replica and cnpg_pooler_pgbouncer (when the PgBouncer Pooler is used)",
 * https://cloudnative-pg.io/docs/1.30/declarative_role_management/). PostgreSQL reserves every role name that
 * starts with `pg_` (https://www.postgresql.org/docs/current/sql-createrole.html).
 */
export const RESERVED_ROLE_NAMES: readonly string[] = ['cnpg_pooler_pgbouncer', 'postgres', 'streaming_replica'];

/** Returns why `name` is a role CNPG or PostgreSQL reserves, or undefined when it may be declared. */
export function reservedRoleProblem(name: string): string | undefined {
  if (RESERVED_ROLE_NAMES.includes(name)) return 'is a role CNPG creates and manages itself';
  if (name.startsWith('pg_')) return 'starts with \'pg_\', which PostgreSQL reserves for its own roles';
  return undefined;
}

/**
 * Returns why `ref` is not a branch or tag name git accepts (the rules of `git check-ref-format --branch`), or
 * undefined when it is. `HEAD` and full `refs/...` names are accepted too.
 */
export function gitRefProblem(ref: string): string | undefined {
  if (ref.length === 0) return 'must not be empty';
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (ref.includes('..')) return 'must not contain \'..\'';
  if (ref.includes('@{')) return 'must not contain \'@{\'';
  if (ref === '@') return 'must not be \'@\'';
  if (ref.startsWith('/') || ref.endsWith('/') || ref.includes('//')) return 'must not start or end with \'/\' or contain \'//\'';
  if (ref.startsWith('-')) return 'must not start with \'-\'';
  if (ref.endsWith('.')) return 'must not end with \'.\'';
  for (const part of ref.split('/')) {
    if (part.startsWith('.')) return 'must not have a path component that starts with \'.\'';
    if (part.endsWith('.lock')) return 'must not have a path component that ends with \'.lock\'';
  }
  return undefined;
}

/**
 * The Kubernetes name of the CR for a PostgreSQL object: `temporal_visibility` becomes `temporal-visibility`.
 * Leading and trailing underscores are dropped because a label cannot start or end with `-`.
 */
export function kubernetesNameForPg(pgName: string): string {
  return pgName.replace(/_/g, '-').replace(/^-+|-+$/g, '');
}

/** Name of the Config Management Plugin that decrypts every `*.enc.yaml` under an Application's path. */
export const SOPS_PLUGIN_NAME = 'sops';

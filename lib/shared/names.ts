/** Naming rules shared by config validation and constructs. Pure functions, no constructs. */

/** RFC 1123 label: what Kubernetes requires of namespace, Service and most object names. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** An unquoted PostgreSQL identifier that needs no quoting anywhere: lower case, digits, underscores. */
const PG_IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Databases PostgreSQL itself owns; CNPG must never manage them. */
export const RESERVED_DATABASE_NAMES: readonly string[] = ['postgres', 'template0', 'template1'];

/** Returns why `name` is not a valid RFC 1123 label (max 63), or undefined when it is. */
export function dnsLabelProblem(name: string, maxLength = 63): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > maxLength) return `must be at most ${maxLength} characters, got ${name.length}`;
  if (!DNS_LABEL.test(name)) {
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

/**
 * The Kubernetes name of the CR for a PostgreSQL object: `temporal_visibility` becomes `temporal-visibility`.
 * Leading and trailing underscores are dropped because a label cannot start or end with `-`.
 */
export function kubernetesNameForPg(pgName: string): string {
  return pgName.replace(/_/g, '-').replace(/^-+|-+$/g, '');
}

/** Name of the Config Management Plugin that decrypts every `*.enc.yaml` under an Application's path. */
export const SOPS_PLUGIN_NAME = 'sops';

import { isObject } from './review-objects';

/** One step of a field path: a map key, an array index, or a named item of a list Kubernetes merges by `name`. */
export type PathSegment = string | number | { readonly name: string };

/** A field that differs between the base and the head version of an object. */
export interface FieldChange {
  readonly path: readonly PathSegment[];
  /** `undefined` when the field is new. */
  readonly old?: unknown;
  /** `undefined` when the field was removed. */
  readonly new?: unknown;
}

/**
 * Every field that differs between `a` (base) and `b` (head), as leaf paths. Lists whose items all have a
 * unique `name` (containers, env, ports, volumes, volumeMounts: the lists Kubernetes merges by name) are
 * compared item by item by name, so a new env var is one change and not a shift of every later index. Other
 * lists are compared by index when their lengths match, else as one value.
 */
export function diffFields(a: unknown, b: unknown, path: readonly PathSegment[] = []): FieldChange[] {
  if (equal(a, b)) return [];
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffFields(a[k], b[k], [...path, k]));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (namedList(a) && namedList(b)) {
      const byName = (list: any[]) => new Map(list.map((item) => [item.name as string, item]));
      const [ma, mb] = [byName(a), byName(b)];
      const names = [...ma.keys(), ...[...mb.keys()].filter((n) => !ma.has(n))];
      return names.flatMap((name) => diffFields(ma.get(name), mb.get(name), [...path, { name }]));
    }
    if (a.length === b.length) return a.flatMap((item, i) => diffFields(item, b[i], [...path, i]));
  }
  return [{ path, ...(a === undefined ? {} : { old: a }), ...(b === undefined ? {} : { new: b }) }];
}

function namedList(list: unknown[]): boolean {
  if (list.length === 0 || !list.every((i) => isObject(i) && typeof i.name === 'string')) return false;
  return new Set(list.map((i) => (i as { name: string }).name)).size === list.length;
}

/** Deep equality of parsed YAML values. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && equal(a[k], b[k]));
  }
  return false;
}

/** `spec.template.spec.containers[forgejo].image`; keys that are not identifiers are quoted: `labels["app.kubernetes.io/name"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (typeof s === 'object') out += `[${s.name}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/**
 * Whether `path` lies at or under `rule`, a dotted path where `[]` stands for any list item
 * (`spec.storage`, `spec.tablespaces.[].storage`).
 */
export function pathUnder(path: readonly PathSegment[], rule: string): boolean {
  const parts = rule.split('.');
  if (path.length < parts.length) return false;
  return parts.every((p, i) => (p === '[]' ? typeof path[i] !== 'string' : path[i] === p));
}

/** A value for one line of the report: JSON, cut to `max` characters. */
export function showValue(v: unknown, max = 60): string {
  if (v === undefined) return '(none)';
  const text = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

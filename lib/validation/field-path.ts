/** A path into a parsed document: object keys and array indexes. */
export type FieldPath = readonly (string | number)[];

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * Renders a path the way Kubernetes error messages do: `spec.template.spec.containers[0].image`. Keys that are
 * not plain identifiers are quoted: `metadata.labels['app.kubernetes.io/name']`.
 */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (PLAIN_KEY.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `['${seg.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
  }
  return out;
}

/** Converts an ajv instance path (JSON pointer, `/spec/containers/0`) to a field path. */
export function pathFromPointer(pointer: string): FieldPath {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((s) => {
    const key = s.replace(/~1/g, '/').replace(/~0/g, '~');
    return /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : key;
  });
}

/** A plain JSON object (not an array or null). */
export type JsonObject = { readonly [key: string]: unknown };

/** True when `v` is a plain object. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a nested value, or undefined when any step is missing. */
export function getIn(v: unknown, path: FieldPath): unknown {
  let cur = v;
  for (const seg of path) {
    if (typeof seg === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[seg];
    } else {
      if (!isObject(cur)) return undefined;
      cur = cur[seg];
    }
  }
  return cur;
}

/** Renders a value for a message: strings quoted, everything else as compact JSON, long values shortened. */
export function show(v: unknown): string {
  let s: string;
  if (typeof v === 'string') s = `'${v}'`;
  else if (typeof v === 'bigint') s = v.toString();
  else if (v === undefined) s = 'nothing';
  else s = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** One rule violation inside a document: where, and the message (what is wrong, the value, the fix). */
export interface Finding {
  readonly path: FieldPath;
  readonly message: string;
}

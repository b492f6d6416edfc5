import type { ErrorObject } from 'ajv';
import { FieldPath, Finding, getIn, isObject, JsonObject, pathFromPointer, show } from './field-path';

/** A kind the pinned schemas know. */
export interface KindInfo {
  readonly apiVersion: string;
  readonly kind: string;
  /** False for cluster-scoped kinds (Namespace, ClusterRole, CustomResourceDefinition...). */
  readonly namespaced: boolean;
  /** True for API versions that Kubernetes 1.30 serves only behind a feature gate. */
  readonly alpha: boolean;
  /** Where the schema comes from: `Kubernetes 1.30`, or the pinned CRD file. */
  readonly source: string;
}


interface KubeSchemaFile {
  readonly $id: string;
  readonly kinds: Readonly<Record<string, { readonly definition: string; readonly namespaced: boolean; readonly alpha?: boolean }>>;
  readonly definitions: Readonly<Record<string, unknown>>;
}

interface CrdSchemaFile {
  readonly $id: string;
  readonly kinds: Readonly<Record<string, { readonly namespaced: boolean; readonly source: string; readonly schema: unknown }>>;
}

/** A validator compiled by ajv (standalone code in schemas/validators.js). */
interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

interface SchemaFiles {
  readonly k8s: KubeSchemaFile;
  readonly crds: CrdSchemaFile;
  /** One validator per `apiVersion/kind`, compiled by scripts/generate-schemas.js. */
  readonly validators: Readonly<Record<string, CompiledValidator>>;
}

let loaded: SchemaFiles | undefined;

/** The generated schemas and validators (schemas/, written by scripts/generate-schemas.js), read on first use. */
function schemaFiles(): SchemaFiles {
  // require() keeps the large JSON out of the type checker, and loads it only when something is validated.
  /* eslint-disable @typescript-eslint/no-require-imports */
  loaded ??= {
    k8s: require('../../schemas/kubernetes-1.30.json') as KubeSchemaFile,
    crds: require('../../schemas/crds.json') as CrdSchemaFile,
    validators: require('../../schemas/validators.js') as Record<string, CompiledValidator>,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return loaded;
}

/** Looks up a kind by apiVersion and kind; undefined when no pinned schema defines it. */
export function lookupKind(apiVersion: string, kind: string): KindInfo | undefined {
  const { k8s, crds } = schemaFiles();
  const key = `${apiVersion}/${kind}`;
  const builtin = k8s.kinds[key];
  if (builtin) return { apiVersion, kind, namespaced: builtin.namespaced, alpha: builtin.alpha === true, source: 'Kubernetes 1.30' };
  const crd = crds.kinds[key];
  if (crd) return { apiVersion, kind, namespaced: crd.namespaced, alpha: false, source: crd.source };
  return undefined;
}

/** The apiVersions the pinned schemas define for `kind`, for "did you mean" hints. */
export function apiVersionsOf(kind: string): string[] {
  const { k8s, crds } = schemaFiles();
  return [...Object.keys(k8s.kinds), ...Object.keys(crds.kinds)]
    .filter((k) => k.endsWith(`/${kind}`))
    .map((k) => k.slice(0, k.length - kind.length - 1))
    .sort();
}

// Keywords that only a whole object must satisfy: a patch leaves out whatever it does not change.
const WHOLE_OBJECT_KEYWORDS = new Set(['required', 'oneOf', 'anyOf', 'not', 'minProperties', 'minItems']);

/** Resolves a `$ref` of the generated schemas (`#/definitions/x` or `kubernetes-1.30.json#/definitions/x`). */
function resolveRef(ref: string, files: SchemaFiles): unknown {
  const [file, pointer] = ref.split('#');
  const doc = file === '' || file === files.k8s.$id ? files.k8s : files.crds;
  return getIn(doc, pathFromPointer(pointer));
}

/** The schema that applies at `path` inside `schema`, following refs, properties, items and map values. */
function schemaAt(schema: unknown, path: FieldPath, files: SchemaFiles): JsonObject | undefined {
  let cur: unknown = schema;
  for (let i = 0; ; i++) {
    while (isObject(cur) && typeof cur.$ref === 'string') cur = resolveRef(cur.$ref, files);
    if (!isObject(cur)) return undefined;
    if (i === path.length) return cur;
    const seg = path[i];
    if (typeof seg === 'number') cur = cur.items;
    else if (isObject(cur.properties) && seg in cur.properties) cur = cur.properties[seg];
    else if (isObject(cur.additionalProperties)) cur = cur.additionalProperties;
    else return undefined;
  }
}

/**
 * The CRD rule ajv does not know that needs no CEL: `x-kubernetes-list-type` (`set` and `map` lists must not
 * repeat an item or key). Walks the data with its schema.
 *
 * The CEL rules (`x-kubernetes-validations`) are not evaluated here: no npm CEL library implements Kubernetes'
 * CEL extensions and transition rules, and a partial evaluator would pass what it cannot judge. The API
 * server judges them.
 */
function crdRuleViolations(schema: unknown, data: unknown, path: FieldPath, out: Finding[]): void {
  if (!isObject(schema) || typeof schema.$ref === 'string') return; // refs lead to built-in definitions: no CRD rules
  const listType = schema['x-kubernetes-list-type'];
  if (Array.isArray(data) && (listType === 'set' || listType === 'map')) {
    const keys = listType === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys'])
      ? (schema['x-kubernetes-list-map-keys'] as string[]) : undefined;
    const seen = new Map<string, number>();
    data.forEach((item, i) => {
      const id = JSON.stringify(keys && isObject(item) ? keys.map((k) => item[k]) : item);
      const first = seen.get(id);
      if (first === undefined) seen.set(id, i);
      else {
        out.push({
          path: [...path, i],
          message: keys
            ? `has the same ${keys.join(', ')} (${keys.map((k) => show(isObject(item) ? item[k] : undefined)).join(', ')}) as item ${first}; `
              + 'the API server rejects duplicate keys in this list. Merge or rename them'
            : `repeats item ${first}; this list is a set and the API server rejects duplicates. Remove one`,
        });
      }
    });
  }
  if (Array.isArray(data)) data.forEach((item, i) => crdRuleViolations(schema.items, item, [...path, i], out));
  else if (isObject(data)) {
    const props = isObject(schema.properties) ? schema.properties : {};
    for (const [k, v] of Object.entries(data)) {
      crdRuleViolations(k in props ? props[k] : schema.additionalProperties, v, [...path, k], out);
    }
  }
}

/**
 * Checks `value` against the strict schema of its kind: unknown fields, missing required fields, wrong types and
 * values, and for custom resources their list keys (not their CEL rules: see `crdRuleViolations`). With `partial`, checks a patch: only
 * known fields and their values, nothing that only a whole object must satisfy.
 */
export function validateAgainstSchema(info: KindInfo, value: unknown, partial: boolean): Finding[] {
  const files = schemaFiles();
  const key = `${info.apiVersion}/${info.kind}`;
  const validate = files.validators[key];
  const builtin = files.k8s.kinds[key];
  const root = builtin ? files.k8s.definitions[builtin.definition] : files.crds.kinds[key]?.schema;
  const out: Finding[] = [];
  if (!validate(value)) {
    for (const e of validate.errors ?? []) {
      if (partial && WHOLE_OBJECT_KEYWORDS.has(e.keyword)) continue;
      const v = violationOf(e, info, value, root, files);
      if (v) out.push(v);
    }
  }
  if (!builtin && !partial) crdRuleViolations(root, value, [], out);
  return out;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  return `a ${typeof v}`;
}

function expectedName(type: unknown): string {
  const names: Record<string, string> = {
    string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean', object: 'an object', array: 'a list',
  };
  const list = Array.isArray(type) ? type : [type];
  return list.map((t) => names[String(t)] ?? String(t)).join(' or ');
}

function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

function closest(name: string, candidates: string[]): string | undefined {
  const lower = name.toLowerCase();
  const exact = candidates.find((c) => c.toLowerCase() === lower);
  if (exact) return exact;
  const scored = candidates.map((c) => ({ c, d: levenshtein(lower, c.toLowerCase()) })).filter((x) => x.d <= 2);
  scored.sort((x, y) => x.d - y.d || (x.c < y.c ? -1 : 1));
  return scored[0]?.c;
}

function violationOf(e: ErrorObject, info: KindInfo, value: unknown, root: unknown, files: SchemaFiles): Finding | undefined {
  const at = pathFromPointer(e.instancePath);
  const data = getIn(value, at);
  const what = `${info.apiVersion} ${info.kind}`;
  switch (e.keyword) {
    case 'additionalProperties': {
      const field = String(e.params.additionalProperty);
      const path = [...at, field];
      if (at.length === 0 && field === 'status') {
        return { path, message: 'status is written by the cluster, never by a manifest; remove it' };
      }
      const parent = schemaAt(root, at, files);
      const allowed = Object.keys(isObject(parent?.properties) ? parent.properties : {}).sort();
      const guess = closest(field, allowed);
      const hint = guess ? `did you mean '${guess}'? ` : '';
      const list = allowed.length === 0 ? 'no fields are allowed here'
        : allowed.length <= 12 ? `known fields here: ${allowed.join(', ')}` : `${allowed.length} known fields here`;
      return {
        path,
        message: `unknown field '${field}': ${what} has no such field and the API server's strict field validation rejects it; `
          + `${hint}remove or rename it (${list})`,
      };
    }
    case 'required': {
      const field = String(e.params.missingProperty);
      return { path: [...at, field], message: `required field is missing; ${what} needs it. Set it` };
    }
    case 'type':
      return {
        path: at,
        message: `${show(data)} is ${typeName(data)} but must be ${expectedName(e.params.type)}; `
          + (e.params.type === 'string' || (Array.isArray(e.params.type) && e.params.type.includes('string'))
            ? 'quote it in the generator (String(value))' : 'fix its type'),
      };
    case 'enum':
      return {
        path: at,
        message: `${show(data)} is not allowed; use one of ${(e.params.allowedValues as unknown[]).map((v) => show(v)).join(', ')}`,
      };
    case 'const':
      return { path: at, message: `${show(data)} must be ${show(e.params.allowedValue)} here; fix the value` };
    case 'pattern':
      // Quantity patterns (ours and the CRDs') are recognizable by their binary suffixes.
      if (/KMGTPE|Ki\|Mi/.test(String(e.params.pattern))) {
        return {
          path: at,
          message: `${show(data)} is not a Kubernetes quantity; write a number with an optional suffix, such as '250m', '1.5', '64Mi' or '2Gi'`,
        };
      }
      return { path: at, message: `${show(data)} does not match the pattern ${String(e.params.pattern)} that ${what} requires; fix the value` };
    case 'anyOf':
    case 'oneOf':
      // The branch errors say what is wrong; this summary adds nothing.
      return undefined;
    default:
      return { path: at, message: `${show(data)} ${e.message ?? 'is invalid'} (${e.keyword} in the ${what} schema); fix the value` };
  }
}

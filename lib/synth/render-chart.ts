/**
 * A fast renderer for the charts of one cdk8s `App`, with output byte-identical to cdk8s's own.
 *
 * cdk8s's `Chart.toJson()` calls `App._synthChart`, which re-resolves the dependencies of, and re-validates,
 * the WHOLE app on every call, so rendering every chart costs charts × app size. `ChartRenderer` resolves and
 * validates once per app, then renders each chart's objects in dependency order with the same
 * `DependencyGraph` and `ApiObject.toJson()` that cdk8s uses. `renderYaml` is `Yaml.stringify` for plain
 * JSON data without the generic YAML document model, and falls back to `Yaml.stringify` for any document it
 * cannot prove it writes the same way.
 *
 * @see https://github.com/cdk8s-team/cdk8s-core/blob/2.x/src/app.ts (`_synthChart`, `resolveDependencies`, `validate`)
 */
import { ApiObject, Chart, DependencyGraph, Yaml } from 'cdk8s';
import { IConstruct } from 'constructs';
import { rememberRendered } from './rendered-documents';

/** An API object of a chart and its rendered JSON. */
export interface RenderedObject {
  readonly obj: ApiObject;
  readonly json: Record<string, any>;
}

/**
 * Renders the charts of one app. Get it with `ChartRenderer.of(construct)`: the first call resolves the
 * app's dependencies and runs every validation (throwing the same message as cdk8s), later calls reuse that
 * work until a construct or a dependency is added to the app.
 */
export class ChartRenderer {
  /**
   * The renderer of the app `scope` belongs to, prepared for the app as it is now.
   *
   * @throws `Validation failed with the following errors: ...` when a construct's validation fails
   */
  public static of(scope: IConstruct): ChartRenderer {
    const app = rootOf(scope);
    const cached = RENDERERS.get(app);
    if (cached && cached.fingerprint === fingerprint(app)) return cached;
    const renderer = new ChartRenderer(app);
    RENDERERS.set(app, renderer);
    return renderer;
  }

  private readonly fingerprint: string;

  private constructor(app: IConstruct) {
    const all = app.node.findAll();
    resolveDependencies(all);
    validate(all);
    // Resolution adds edges; the fingerprint is taken after it, so a second resolution would change nothing.
    this.fingerprint = fingerprint(app);
  }

  /** The chart's API objects (not those of nested charts) with their JSON, in dependency order: `chart.toJson()`. */
  public chartObjects(chart: Chart): RenderedObject[] {
    return new DependencyGraph(chart.node).topology()
      .filter((c): c is ApiObject => c instanceof ApiObject && Chart.of(c) === chart)
      .map((obj) => ({ obj, json: obj.toJson() }));
  }
}

/** Equivalent to `chart.toJson()`: the chart's manifests in dependency order, with the app resolved and validated once. */
export function renderChart(chart: Chart): Record<string, any>[] {
  return ChartRenderer.of(chart).chartObjects(chart).map((o) => o.json);
}

const RENDERERS = new WeakMap<IConstruct, ChartRenderer>();

function rootOf(c: IConstruct): IConstruct {
  let root = c;
  while (root.node.scope) root = root.node.scope;
  return root;
}

/** Changes whenever a construct or a dependency is added anywhere in the app. */
function fingerprint(app: IConstruct): string {
  let constructs = 0;
  let dependencies = 0;
  const visit = (c: IConstruct): void => {
    constructs++;
    dependencies += c.node.dependencies.length;
    for (const child of c.node.children) visit(child);
  };
  visit(app);
  return `${constructs}/${dependencies}`;
}

/** cdk8s `resolveDependencies` (core `src/app.ts`), over the app's constructs listed once. */
function resolveDependencies(all: readonly IConstruct[]): void {
  const apiObjectsUnder = new Map<IConstruct, ApiObject[]>();
  const apiObjects = (c: IConstruct): ApiObject[] => {
    let found = apiObjectsUnder.get(c);
    if (!found) {
      const chart = Chart.of(c);
      found = c.node.findAll().filter((x): x is ApiObject => x instanceof ApiObject && Chart.of(x) === chart);
      apiObjectsUnder.set(c, found);
    }
    return found;
  };
  // A parent chart depends on its nested charts.
  for (const parent of all) {
    if (!(parent instanceof Chart)) continue;
    for (const child of parent.node.children) if (child instanceof Chart) parent.node.addDependency(child);
  }
  const deps: { source: IConstruct; target: IConstruct }[] = [];
  for (const source of all) for (const target of source.node.dependencies) deps.push({ source, target });
  // A construct dependency across charts makes the charts depend on each other.
  for (const { source, target } of deps) {
    const sourceChart = Chart.of(source);
    const targetChart = Chart.of(target);
    if (sourceChart !== targetChart) sourceChart.node.addDependency(targetChart);
  }
  // A construct dependency makes every ApiObject under the source depend on every ApiObject under the target.
  for (const { source, target } of deps) {
    const targets = apiObjects(target);
    for (const s of apiObjects(source)) for (const t of targets) if (t !== s) s.node.addDependency(t);
  }
}

/** cdk8s `validate` (core `src/app.ts`): every construct's validations, all problems in one error. */
function validate(all: readonly IConstruct[]): void {
  const errors: string[] = [];
  for (const c of all) for (const e of c.node.validate()) errors.push(`[${c.node.path}] ${e}`);
  if (errors.length > 0) throw new Error(`Validation failed with the following errors:\n  ${errors.join('\n  ')}`);
}

// ---------------------------------------------------------------------------------------------------------
// YAML

/**
 * `Yaml.stringify(...docs)` (cdk8s: YAML 1.1, no line folding), written directly for plain JSON data.
 *
 * A document is written by the fast path only when every value in it is a plain object, an array, a string,
 * a finite number, a boolean or `null`, no object appears twice (the library would write an alias), and every
 * string has a style this module reproduces exactly; any other document goes to `Yaml.stringify`.
 */
export function renderYaml(docs: readonly unknown[]): string {
  let fast = true;
  const text = docs.map((doc) => {
    const written = doc === undefined ? undefined : fastDocument(doc);
    if (written !== undefined) return written;
    fast = false;
    return doc === undefined ? '\n' : Yaml.stringify(doc);
  }).join('---\n');
  // Text the fast path wrote reads back as its documents: the validator need not parse it again.
  if (fast) rememberRendered(text, docs);
  return text;
}

/** Thrown inside the fast path when a document needs the library; never escapes this module. */
class NeedsLibrary {}
const NEEDS_LIBRARY = new NeedsLibrary();

function fastDocument(doc: unknown): string | undefined {
  // Only non-empty block maps and sequences at the top: scalars and document markers need the library's rules.
  if (!isCollection(doc) || (Array.isArray(doc) ? doc.length === 0 : Object.keys(doc).length === 0)) return undefined;
  try {
    return `${node(doc, '', new Set())}\n`;
  } catch (e) {
    if (e === NEEDS_LIBRARY) return undefined;
    throw e;
  }
}

function isCollection(value: unknown): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return Array.isArray(value) ? proto === Array.prototype : proto === Object.prototype || proto === null;
}

/** A value at a position whose continuation lines are indented by `indent` (the library's `ctx.indent`). */
function node(value: unknown, indent: string, seen: Set<object>): string {
  if (value !== null && typeof value === 'object') {
    if (!isCollection(value) || seen.has(value)) throw NEEDS_LIBRARY;
    seen.add(value);
    return Array.isArray(value) ? sequence(value, indent, seen) : map(value, indent, seen);
  }
  return scalar(value, indent);
}

function map(obj: Record<string, unknown>, indent: string, seen: Set<object>): string {
  const keys = Object.keys(obj);
  if (keys.length === 0) return '{}';
  const child = `${indent}  `;
  let out = '';
  for (let i = 0; i < keys.length; i++) {
    const value = obj[keys[i]];
    const valueStr = node(value, child, seen);
    const blockCollection = valueStr !== '{}' && valueStr !== '[]' && isCollection(value);
    out += `${i === 0 ? '' : `\n${indent}`}${key(keys[i])}:${blockCollection ? `\n${child}` : ' '}${valueStr}`;
  }
  return out;
}

function sequence(items: unknown[], indent: string, seen: Set<object>): string {
  if (items.length === 0) return '[]';
  const child = `${indent}  `;
  let out = '';
  for (let i = 0; i < items.length; i++) {
    if (!(i in items)) throw NEEDS_LIBRARY;
    out += `${i === 0 ? '' : `\n${indent}`}- ${node(items[i], child, seen)}`;
  }
  return out;
}

function scalar(value: unknown, indent: string): string {
  switch (typeof value) {
    case 'string':
      return value.includes('\n') ? blockLiteral(value, indent) : singleLine(value, false);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // -0, NaN and ±Infinity have special YAML 1.1 forms.
      if (!Number.isFinite(value) || Object.is(value, -0)) throw NEEDS_LIBRARY;
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      throw NEEDS_LIBRARY;
    default:
      // undefined (kept as null by cdk8s's keepUndefined), bigint, symbol, function
      throw NEEDS_LIBRARY;
  }
}

function key(k: string): string {
  // An empty key, a long key or a multi-line key is written as an explicit `? key` by the library.
  if (k === '' || k.length > 1000 || k.includes('\n')) throw NEEDS_LIBRARY;
  return singleLine(k, true);
}

// Characters the library always writes double-quoted, with escapes.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
// The library's `plainString` test: text that cannot be a plain scalar.
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;
const MERGE_KEY = '<<';
const SINGLE_LINE = [new Map<string, string>(), new Map<string, string>()];
/**
 * The implicit (untagged) scalars of the YAML 1.1 schema other than strings, as the `yaml` library tests
 * them: a string matching one of these is quoted. Copied, so that rendering does not load a second copy of
 * the library next to cdk8s's own; a test checks the list against the library.
 */
export const YAML_11_NON_STRING_SCALARS: readonly RegExp[] = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
  /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  /^[-+]?0b[0-1_]+$/,
  /^[-+]?0[0-7_]+$/,
  /^[-+]?[0-9][0-9_]*$/,
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^<<$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/,
  new RegExp('^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})' +
    '(?:(?:t|T|[ \\t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\\.[0-9]+)?)(?:[ \\t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$'),
];

/** A string without a newline, as a map key (`implicitKey`) or a value. */
function singleLine(value: string, implicitKey: boolean): string {
  const cache = SINGLE_LINE[implicitKey ? 1 : 0];
  let out = cache.get(value);
  if (out === undefined) {
    if (CONTROL.test(value) || DOCUMENT_MARKER.test(value)) throw NEEDS_LIBRARY;
    // The library writes `<<` with the YAML 1.1 merge-key tag, which is always plain.
    const plain = value === MERGE_KEY || !(NOT_PLAIN.test(value) || YAML_11_NON_STRING_SCALARS.some((re) => re.test(value)));
    out = plain ? value : quoted(value);
    cache.set(value, out);
  }
  return out;
}

/** The library's `quotedString` for one line without control characters: single quotes only if it holds `"` and no `'`. */
function quoted(value: string): string {
  return value.includes('"') && !value.includes("'") ? `'${value.replace(/'/g, "''")}'` : JSON.stringify(value);
}

/** A multi-line string as a literal block scalar (`|`, `|-`), the only block style without line folding. */
function blockLiteral(text: string, indent: string): string {
  // Control characters force double quotes; trailing whitespace after the last newline forces a quoted
  // string; a run of trailing newlines (`|+`) changes how the library writes what follows.
  if (CONTROL.test(text) || /\n[\t ]+$/.test(text)) throw NEEDS_LIBRARY;
  let value = text;
  let endStart = value.length;
  while (endStart > 0 && (value[endStart - 1] === '\n' || value[endStart - 1] === '\t' || value[endStart - 1] === ' ')) endStart--;
  let end = value.substring(endStart);
  const endNl = end.indexOf('\n');
  if (endNl !== -1 && (value === end || endNl !== end.length - 1)) throw NEEDS_LIBRARY;
  const chomp = endNl === -1 ? '-' : '';
  if (end) {
    value = value.slice(0, -end.length);
    if (end[end.length - 1] === '\n') end = end.slice(0, -1);
    end = end.replace(/(^|(?<!\n))\n+(?!\n|$)/g, `$&${indent}`);
  }
  let startWithSpace = false;
  let startEnd = 0;
  let startNl = -1;
  for (; startEnd < value.length; ++startEnd) {
    const ch = value[startEnd];
    if (ch === ' ') startWithSpace = true;
    else if (ch === '\n') startNl = startEnd;
    else break;
  }
  let start = value.substring(0, startNl < startEnd ? startNl + 1 : startEnd);
  if (start) {
    value = value.substring(start.length);
    start = start.replace(/\n+/g, `$&${indent}`);
  }
  const header = `${startWithSpace ? '2' : ''}${chomp}`;
  return `|${header}\n${indent}${start}${value.replace(/\n+/g, `$&${indent}`)}${end}`;
}

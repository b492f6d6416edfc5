#!/usr/bin/env node
// Regenerates schemas/ (the strict JSON Schemas that lib/validation checks every synthesized object against):
//
//   node scripts/generate-schemas.js
//
// Sources, both pinned:
// - Kubernetes 1.30 built-in kinds: the `cdk8s import k8s@1.30.0` module that cdk8s-plus-30 ships
//   (node_modules/cdk8s-plus-30/lib/imports/k8s.d.ts, pinned by package-lock.json). Every interface and property
//   there carries an `@schema <definition>#<json field>` tag naming the upstream OpenAPI definition, so the JSON
//   field names, the required fields and the types come straight from the 1.30 OpenAPI definitions.
// - Custom resources: the CRDs listed in scripts/crd-sources.json (the same pins as imports/), read from CRD_DIR
//   (default ../shared/crds) or their pinned URL, and checked against their git blob SHA before use.
//
// The output is reduced (no descriptions, defaults or examples) and made strict the way the API server's strict
// field validation is: an object accepts only the fields its schema names, except where the API keeps unknown
// fields (x-kubernetes-preserve-unknown-fields, string maps). Upstream files are never copied into the repo.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const ts = require('typescript');
const YAML = require('yaml');
const { sources, loadVerified, sourceOf } = require('./crd-sources');

const root = path.resolve(__dirname, '..');
// --out <dir> writes elsewhere (tests regenerate into a temporary folder and compare with schemas/).
const outIndex = process.argv.indexOf('--out');
const outDir = outIndex > 0 ? path.resolve(process.argv[outIndex + 1]) : path.join(root, 'schemas');
const K8S_SCHEMA_ID = 'kubernetes-1.30.json';
const CRD_SCHEMA_ID = 'crds.json';
// Kubernetes quantity syntax (k8s.io/apimachinery resource.Quantity): a decimal number and an optional SI,
// binary or exponent suffix.
const QUANTITY_PATTERN = '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$';
// Keywords that ajv only has to know by name: the structural-schema markers it does not enforce itself.
// x-kubernetes-validations and x-kubernetes-list-type are checked by lib/validation from the JSON schemas.
const K8S_KEYWORDS = ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-map-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-validations'];
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

// The only floating-point fields of the 1.30 built-in API (OpenAPI `format: double`); every other number is an
// int32 or int64, as the API conventions require.
const FLOAT_FIELDS = new Set([
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps#maximum',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps#minimum',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps#multipleOf',
]);

// Cluster-scoped built-in kinds of Kubernetes 1.30 (`kubectl api-resources --namespaced=false`). The OpenAPI
// definitions do not say which kinds are namespaced; every kind not listed here is. Each entry must exist.
const CLUSTER_SCOPED = [
  'v1/ComponentStatus', 'v1/Namespace', 'v1/Node', 'v1/PersistentVolume',
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
  'apiregistration.k8s.io/v1/APIService',
  'certificates.k8s.io/v1/CertificateSigningRequest',
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema', 'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration',
  'networking.k8s.io/v1/IngressClass',
  'node.k8s.io/v1/RuntimeClass',
  'rbac.authorization.k8s.io/v1/ClusterRole', 'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  'scheduling.k8s.io/v1/PriorityClass',
  'storage.k8s.io/v1/CSIDriver', 'storage.k8s.io/v1/CSINode', 'storage.k8s.io/v1/StorageClass',
  'storage.k8s.io/v1/VolumeAttachment',
];
// Same rule for the older and pre-release versions of those kinds, matched by group and kind.
const CLUSTER_SCOPED_ALPHA_BETA_KINDS = new Set([
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'certificates.k8s.io/ClusterTrustBundle', 'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration', 'internal.apiserver.k8s.io/StorageVersion',
  'networking.k8s.io/IPAddress', 'networking.k8s.io/ServiceCIDR', 'resource.k8s.io/ResourceClass',
  'resource.k8s.io/ResourceSlice', 'storage.k8s.io/VolumeAttributesClass', 'storagemigration.k8s.io/StorageVersionMigration',
]);

function sha256(buf) {
  return crypto.createHash('sha256').update(buf).digest('hex');
}

/** Returns `value` with object keys sorted recursively, so the generated files are stable. */
function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
  }
  return value;
}

function lockedVersion(pkg) {
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const entry = lock.packages[`node_modules/${pkg}`];
  if (!entry) throw new Error(`${pkg} is not in package-lock.json; run npm ci`);
  return { version: entry.version, integrity: entry.integrity };
}

// ---------------------------------------------------------------------------------------------------------------
// Kubernetes built-ins from cdk8s-plus-30's generated k8s module

function schemaTag(node) {
  const tags = ts.getJSDocTags(node).filter((t) => t.tagName.text === 'schema');
  if (tags.length !== 1) return undefined;
  return typeof tags[0].comment === 'string' ? tags[0].comment.trim() : ts.getTextOfJSDocComment(tags[0].comment).trim();
}

function generateKubernetes() {
  const dtsPath = require.resolve('cdk8s-plus-30/lib/imports/k8s.d.ts', { paths: [root] });
  const jsPath = require.resolve('cdk8s-plus-30/lib/imports/k8s.js', { paths: [root] });
  const text = fs.readFileSync(dtsPath, 'utf8');
  const sf = ts.createSourceFile(dtsPath, text, ts.ScriptTarget.Latest, true);

  const interfaceIds = new Map(); // TS interface name -> OpenAPI definition id
  const enums = new Map(); // TS enum name -> values
  const interfaces = [];
  for (const st of sf.statements) {
    if (ts.isInterfaceDeclaration(st)) {
      const id = schemaTag(st);
      if (!id || id.includes('#')) throw new Error(`interface ${st.name.text} has no @schema definition tag`);
      interfaceIds.set(st.name.text, id);
      interfaces.push({ node: st, id });
    } else if (ts.isEnumDeclaration(st)) {
      enums.set(st.name.text, st.members.map((m) => JSON.parse(m.initializer.getText())));
    }
  }

  const typeToSchema = (node, field) => {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword: return { type: 'string' };
      case ts.SyntaxKind.BooleanKeyword: return { type: 'boolean' };
      case ts.SyntaxKind.NumberKeyword: return { type: FLOAT_FIELDS.has(field) ? 'number' : 'integer' };
      case ts.SyntaxKind.AnyKeyword: return {};
      case ts.SyntaxKind.ArrayType: return { type: 'array', items: typeToSchema(node.elementType, field) };
      case ts.SyntaxKind.TypeLiteral: {
        const index = node.members.length === 1 && ts.isIndexSignatureDeclaration(node.members[0]) ? node.members[0] : undefined;
        if (!index) throw new Error(`${field}: unsupported type literal ${node.getText()}`);
        return { type: 'object', additionalProperties: typeToSchema(index.type, field) };
      }
      case ts.SyntaxKind.TypeReference: {
        const name = node.typeName.getText();
        if (name === 'IntOrString') return { type: ['string', 'integer'] };
        if (name === 'Quantity') return { type: ['string', 'number'], pattern: QUANTITY_PATTERN };
        if (name === 'Date') return { type: 'string' };
        if (enums.has(name)) return { type: 'string', enum: enums.get(name) };
        const id = interfaceIds.get(name);
        if (!id) throw new Error(`${field}: unknown type ${name}`);
        return { $ref: `#/definitions/${id}` };
      }
      default:
        throw new Error(`${field}: unsupported type ${ts.SyntaxKind[node.kind]} (${node.getText()})`);
    }
  };

  const definitions = {};
  for (const { node, id } of interfaces) {
    if (definitions[id]) throw new Error(`two interfaces define ${id}`);
    const properties = {};
    const required = [];
    for (const m of node.members) {
      const tag = schemaTag(m);
      if (!tag || !tag.startsWith(`${id}#`)) throw new Error(`${id}: property ${m.name.getText()} has no @schema field tag`);
      const json = tag.slice(id.length + 1);
      properties[json] = typeToSchema(m.type, tag);
      if (!m.questionToken) required.push(json);
    }
    definitions[id] = { type: 'object', properties, additionalProperties: false };
    if (required.length) definitions[id].required = required.sort();
  }

  // Top-level kinds: every generated Kube* class with its apiVersion and kind, and the props interface it renders.
  const k8s = require(jsPath);
  const clusterScoped = new Set(CLUSTER_SCOPED);
  const kinds = {};
  for (const [className, cls] of Object.entries(k8s)) {
    if (typeof cls !== 'function' || !cls.GVK || className.endsWith('List')) continue;
    const { apiVersion, kind } = cls.GVK;
    if (kind.endsWith('List')) continue;
    const id = interfaceIds.get(`${className}Props`);
    if (!id) throw new Error(`${className} has no props interface`);
    const def = definitions[id];
    def.properties.apiVersion = { type: 'string', const: apiVersion };
    def.properties.kind = { type: 'string', const: kind };
    def.required = [...new Set([...(def.required ?? []), 'apiVersion', 'kind'])].sort();
    const key = `${apiVersion}/${kind}`;
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    const namespaced = !(clusterScoped.has(key) || CLUSTER_SCOPED_ALPHA_BETA_KINDS.has(`${group}/${kind}`)
      || /^(SelfSubject|Subject|Token)\w*(Review)$/.test(kind));
    kinds[key] = { definition: id, namespaced, ...(/alpha/.test(apiVersion) ? { alpha: true } : {}) };
    clusterScoped.delete(key);
  }
  if (clusterScoped.size) throw new Error(`CLUSTER_SCOPED names unknown kinds: ${[...clusterScoped].join(', ')}`);

  const plus = lockedVersion('cdk8s-plus-30');
  return {
    source: {
      package: `cdk8s-plus-30@${plus.version}`,
      integrity: plus.integrity,
      file: 'lib/imports/k8s.d.ts',
      sha256: sha256(Buffer.from(text)),
      generatedBy: 'cdk8s import k8s@1.30.0 (Kubernetes 1.30.0 OpenAPI definitions)',
    },
    schema: sortKeys({ $id: K8S_SCHEMA_ID, kinds, definitions }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Custom resources from the pinned CRDs

// Formats are dropped: Kubernetes formats (int32, date-time, byte...) are either implied by the type or not
// something a manifest generator gets wrong; ajv would need a definition for each.
const DROP_KEYWORDS = new Set(['description', 'example', 'default', 'title', 'format', 'externalDocs']);

/**
 * A CRD `pattern` (a Go RE2 expression) as a JavaScript one. RE2's inline case-insensitive flag `(?i)` has no
 * JavaScript form inside a pattern (ajv compiles each pattern without flags), so a pattern that starts with it, like
 * prometheus-operator v0.93.1's `^(?i)(abort|warn)?$` for a rule group's `partial_response_strategy`, has each
 * letter after it spelled in both cases. Any other inline flag fails the generation rather than being misread.
 */
function jsPattern(pattern) {
  const m = /^(\^?)\(\?i\)(.*)$/s.exec(pattern);
  if (!m) {
    if (/\(\?[a-zA-Z]/.test(pattern)) throw new Error(`pattern ${pattern}: an RE2 inline flag this generator cannot translate`);
    return pattern;
  }
  if (/[\\[]/.test(m[2])) throw new Error(`pattern ${pattern}: (?i) with escapes or classes is not translated`);
  return m[1] + m[2].replace(/[a-zA-Z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
}

/** Reduces one CRD structural schema node and makes it strict; counts the CEL rules it cannot check. */
function reduceCrdSchema(node, stats) {
  if (Array.isArray(node)) return node.map((n) => reduceCrdSchema(n, stats));
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROP_KEYWORDS.has(k)) continue;
    if (k === 'properties') {
      out.properties = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, reduceCrdSchema(s, stats)]));
    } else if (k === 'pattern') {
      out.pattern = jsPattern(v);
    } else if (k === 'enum' || k === 'required' || k === 'x-kubernetes-list-map-keys') {
      out[k] = v;
    } else if (k === 'x-kubernetes-validations') {
      out[k] = v.map((r) => ({ rule: r.rule, ...(r.message ? { message: r.message } : {}) }));
      stats.celRules += v.length;
    } else {
      out[k] = reduceCrdSchema(v, stats);
    }
  }
  if (out['x-kubernetes-int-or-string']) {
    out.type = ['integer', 'string'];
    if (Array.isArray(out.anyOf) && out.anyOf.every((b) => b.type === 'integer' || b.type === 'string')) delete out.anyOf;
  }
  // Structural schemas prune unknown fields unless told to keep them; strict validation rejects them instead.
  if (out.type === 'object' && out.additionalProperties === undefined && !out['x-kubernetes-preserve-unknown-fields']) {
    out.additionalProperties = false;
  }
  return out;
}

async function loadCrd(src) {
  return YAML.parse((await loadVerified(src)).toString('utf8'));
}

async function generateCrds() {
  const kinds = {};
  const sourcesOut = [];
  for (const src of sources) {
    const crd = await loadCrd(src);
    const { group, names, scope } = crd.spec;
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      const stats = { celRules: 0 };
      const s = reduceCrdSchema(v.schema.openAPIV3Schema, stats);
      const apiVersion = `${group}/${v.name}`;
      // What a manifest may carry at the top: status is written by the controller, so it is left out.
      delete s.properties.status;
      s.properties.apiVersion = { type: 'string', const: apiVersion };
      s.properties.kind = { type: 'string', const: names.kind };
      s.properties.metadata = { $ref: `${K8S_SCHEMA_ID}#/definitions/${OBJECT_META}` };
      s.required = [...new Set([...(s.required ?? []), 'apiVersion', 'kind'])].sort();
      s.additionalProperties = false;
      // sourceUrl and sourceVersion: the snapshot each kind comes from, for the pins inventory (lib/plan/pins.ts).
      kinds[`${apiVersion}/${names.kind}`] = {
        namespaced: scope === 'Namespaced', source: src.file, sourceUrl: src.url, sourceVersion: src.version, celRules: stats.celRules, schema: s,
      };
    }
    sourcesOut.push({ file: src.file, url: sourceOf(src), version: src.version, blob: src.blob });
  }
  return { sources: sourcesOut, schema: sortKeys({ $id: CRD_SCHEMA_ID, kinds }) };
}

// ---------------------------------------------------------------------------------------------------------------

function readme(k8s, crds) {
  const kindCount = Object.keys(k8s.schema.kinds).length;
  const defCount = Object.keys(k8s.schema.definitions).length;
  const crdRows = Object.entries(crds.schema.kinds).map(([key, k]) => {
    const src = crds.sources.find((s) => s.file === k.source);
    return `| \`${key}\` | ${k.namespaced ? 'Namespaced' : 'Cluster'} | ${src.url} | ${src.version} | \`${src.blob}\` | ${k.celRules} |`;
  });
  return [
    '# Generated: do not edit',
    '',
    'Strict JSON Schemas that `lib/validation` checks every synthesized object against. Generated by',
    '`node scripts/generate-schemas.js` from the pinned sources below; nothing here is an upstream file.',
    '',
    '## Kubernetes 1.30 built-in kinds: `kubernetes-1.30.json`',
    '',
    `- Source: \`${k8s.source.package}\` (\`${k8s.source.file}\`, sha256 \`${k8s.source.sha256}\`), pinned in`,
    `  \`package-lock.json\` (integrity \`${k8s.source.integrity}\`).`,
    `- That file is generated by ${k8s.source.generatedBy}; cdk8s-plus-30 describes itself as synthesizing`,
    '  "manifests for Kubernetes 1.30.0". Every interface and property carries an `@schema <definition>#<json field>`',
    '  tag naming its upstream OpenAPI definition, so field names, required fields and types are the upstream ones.',
    `- ${kindCount} kinds, ${defCount} definitions. apiVersion and kind come from the generated classes' \`GVK\`.`,
    '',
    'Why this source (the machine reaches only the npm and Debian registries):',
    '',
    '- It is already a pinned dependency and is the exact API model the constructs are built against: no new package.',
    '- It keeps the required fields (`?` in the declarations) and the upstream definition and field names.',
    '- `@kubernetes/client-node` was rejected: its README lists 0.21.x for Kubernetes 1.30, but 0.21.0 is generated',
    '  from `release-1.29` (its model headers say so; `SecurityContext.appArmorProfile`, new in 1.30, is missing), and',
    '  its type map has no required fields. 0.22.0 is generated from `release-1.30`, but still has no required fields',
    '  and pulls in a large runtime dependency tree.',
    '- `kubernetes-types@1.30.0` has the same information as TypeScript declarations, but would be a new dependency.',
    '',
    'Mapping: `string`/`boolean` as is; `number` is `integer` (Kubernetes API conventions allow no floats) except',
    'the three `format: double` fields of `JSONSchemaProps` (`maximum`, `minimum`, `multipleOf`); `IntOrString` is',
    'string or integer; `Quantity` is string or number, strings matching the quantity syntax of apimachinery;',
    'times are strings; `{ [key: string]: T }` maps (labels, annotations, data) are string-keyed maps of T; `any` is',
    'unchecked. Every object definition has `additionalProperties: false`. `status` is not part of the schemas: it',
    'is written by controllers and has no place in a manifest.',
    '',
    'Not in the OpenAPI definitions, so kept as a table in the script: which kinds are cluster-scoped',
    '(`namespaced: false`), and the float fields above. `alpha: true` marks API versions that 1.30 serves only',
    'behind feature gates.',
    '',
    '## Custom resources: `crds.json`',
    '',
    'From the CRDs pinned in `scripts/crd-sources.json` (the same pins as `imports/`), each checked against its git',
    'blob SHA before use. Reduced to what validation needs: descriptions, defaults, examples and formats dropped;',
    '`x-kubernetes-int-or-string` becomes `type: [integer, string]`; every object without',
    '`x-kubernetes-preserve-unknown-fields` gets `additionalProperties: false`, which is what the API server\'s strict',
    'field validation enforces for a structural schema; `status` removed; `metadata` points at the built-in',
    '`ObjectMeta`. `x-kubernetes-validations` (CEL) rules are kept; `lib/validation` evaluates the simple forms and',
    'skips the rest (transition rules with `oldSelf` never apply to a new object).',
    '',
    '| kind | scope | source | version | blob | CEL rules |',
    '| --- | --- | --- | --- | --- | --- |',
    ...crdRows,
    '',
    '## Compiled validators: `validators.js`',
    '',
    'ajv 8 (pinned in `package-lock.json`) compiles every kind of both files once, in the script, into this standalone',
    'CommonJS module (`inlineRefs: false`, so each definition is one function shared by every kind that uses it).',
    'Compiling the pod-template kinds and the CNPG Cluster at run time costs seconds; loading this module costs about',
    'a tenth of one. `lib/validation` reads the JSON files for messages (known fields, CEL rules, list keys).',
    '',
    'To add a custom resource kind, add its CRD to `scripts/crd-sources.json` and run `node scripts/generate-schemas.js`',
    '(CRD_DIR points at the pinned CRD files; without it, `../shared/crds`, then the pinned URLs).',
    '',
  ].join('\n');
}

/**
 * Compiles every kind's schema with ajv once, here, into a standalone CommonJS module: compiling the pod-template
 * kinds and the CNPG Cluster at run time costs seconds, loading the compiled module about a tenth of one.
 */
function compileValidators(k8sSchema, crdSchema) {
  const Ajv = require('ajv').default;
  const standaloneCode = require('ajv/dist/standalone').default;
  const ajv = new Ajv({
    strict: false, // upstream CRDs use keywords ajv does not know
    allErrors: true,
    unicodeRegExp: false, // CRD patterns are Go (RE2) regular expressions, which non-unicode JS regexps match closer
    validateSchema: false,
    inlineRefs: false, // each definition becomes one function that every kind using it shares
    code: { source: true },
  });
  for (const keyword of K8S_KEYWORDS) ajv.addKeyword({ keyword });
  ajv.addSchema(k8sSchema);
  ajv.addSchema(crdSchema);
  const refs = {};
  for (const [key, k] of Object.entries(k8sSchema.kinds)) refs[key] = `${K8S_SCHEMA_ID}#/definitions/${k.definition}`;
  for (const key of Object.keys(crdSchema.kinds)) refs[key] = `${CRD_SCHEMA_ID}#/kinds/${key.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`;
  const header = '// Generated by scripts/generate-schemas.js from kubernetes-1.30.json and crds.json: do not edit.\n';
  return header + standaloneCode(ajv, refs) + '\n';
}

async function main() {
  const k8s = generateKubernetes();
  const crds = await generateCrds();
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, K8S_SCHEMA_ID), `${JSON.stringify(k8s.schema, null, 1)}\n`);
  fs.writeFileSync(path.join(outDir, CRD_SCHEMA_ID), `${JSON.stringify(crds.schema, null, 1)}\n`);
  fs.writeFileSync(path.join(outDir, 'validators.js'), compileValidators(k8s.schema, crds.schema));
  fs.writeFileSync(path.join(outDir, 'README.md'), readme(k8s, crds));
}

main().catch((e) => { console.error(e.message); process.exit(1); });

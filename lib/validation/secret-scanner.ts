import { FieldPath, Finding, isObject, JsonObject } from './field-path';
import { ManifestDocument } from './manifest-documents';
import { OutputProblem } from './output-problem';
import { KindInfo } from './schema-validator';
import { findSecrets } from '../shared/secrets';

export { findSecrets } from '../shared/secrets';
export type { SecretMatch } from '../shared/secrets';

/**
 * Finds secrets that must never be in the output: private keys (also base64-encoded), GitHub tokens, and
 * literal values of password-like keys in Secrets, kustomize generators, container env and scripts. Messages
 * never repeat the secret: they show at most a short prefix.
 */

/** Keys whose value is a credential when they hold a literal. */
const SENSITIVE_KEY = /(password|passwd|token|secret|credential|key|dockerconfigjson|dockercfg)/i;
/** Environment variable names whose value is a credential (not `PWD`, the working directory). */
const SENSITIVE_ENV = /(password|passwd|secret|token|api_?key|private_?key|credential)/i;
/** `kubectl create secret ... --from-literal=key=value` with a literal (not `$VAR`) value. */
const FROM_LITERAL = /--from-literal=([A-Za-z0-9._-]+)=("[^"$]+"|'[^']+'|[^\s"'$][^\s]*)/g;

function lineOf(content: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (content.charCodeAt(i) === 10) line++;
  return line;
}

const FIX = 'keep secrets out of the output: reference a Secret that is created at apply time (a local file, SOPS, or an external secret store)';

/** Scans any output file (manifests, scripts, Markdown) as text. */
export function scanTextForSecrets(file: string, content: string): OutputProblem[] {
  const out: OutputProblem[] = findSecrets(content).map((s) => ({
    file,
    path: `line ${lineOf(content, s.index)}`,
    message: `contains ${s.what}; ${s.kind === 'github-token' ? 'revoke it on GitHub and ' : ''}${FIX}`,
  }));
  if (file.endsWith('.sh')) {
    for (const m of content.matchAll(FROM_LITERAL)) {
      if (SENSITIVE_KEY.test(m[1])) {
        out.push({
          file,
          path: `line ${lineOf(content, m.index ?? 0)}`,
          message: `passes a literal value for '${m[1]}' with --from-literal; read it from a file or variable (--from-file, "$VAR") instead`,
        });
      }
    }
  }
  return out;
}

/**
 * Private keys and GitHub tokens in any string of a generated document (what `scanTextForSecrets` finds in
 * text), at the field that holds them.
 */
export function secretStringFindings(value: unknown, path: FieldPath = []): Finding[] {
  if (typeof value === 'string') {
    return findSecrets(value).map((m) => ({
      path,
      message: `contains ${m.what}; ${m.kind === 'github-token' ? 'revoke it on GitHub and ' : ''}${FIX}`,
    }));
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => secretStringFindings(v, [...path, i]));
  if (isObject(value)) return Object.keys(value).flatMap((k) => secretStringFindings(value[k], [...path, k]));
  return [];
}

function nonEmpty(v: unknown): boolean {
  if (typeof v === 'string') return v.trim() !== '' && !v.startsWith('ENC['); // SOPS-encrypted values are fine
  return v !== null && v !== undefined;
}

/** Literal credentials in env lists anywhere in the document (containers, CRD env fields). */
function envFindings(v: unknown, path: FieldPath, out: Finding[]): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => envFindings(x, [...path, i], out));
    return;
  }
  if (!isObject(v)) return;
  for (const [key, child] of Object.entries(v)) {
    if (key === 'env' && Array.isArray(child)) {
      child.forEach((e, i) => {
        if (isObject(e) && typeof e.name === 'string' && SENSITIVE_ENV.test(e.name) && nonEmpty(e.value)) {
          out.push({
            path: [...path, 'env', i, 'value'],
            message: `environment variable '${e.name}' has a literal value; use valueFrom.secretKeyRef to read it from a Secret`,
          });
        }
      });
    }
    envFindings(child, [...path, key], out);
  }
}

function generatorFindings(kustomization: JsonObject, out: Finding[]): void {
  for (const gen of ['secretGenerator', 'configMapGenerator']) {
    const list = kustomization[gen];
    if (!Array.isArray(list)) continue;
    list.forEach((g, i) => {
      if (!isObject(g) || !Array.isArray(g.literals)) return;
      g.literals.forEach((lit, j) => {
        if (typeof lit !== 'string') return;
        const eq = lit.indexOf('=');
        const key = eq < 0 ? lit : lit.slice(0, eq);
        if (SENSITIVE_KEY.test(key) && nonEmpty(lit.slice(eq + 1))) {
          out.push({
            path: [gen, i, 'literals', j],
            message: `${gen} '${String(g.name)}' has a literal value for '${key}'; use files: with a file supplied at apply time, and ${FIX}`,
          });
        }
      });
    });
  }
}

/** Literal credentials in a document: Secret data, kustomize generator literals, and env values. */
export function secretValueFindings(doc: ManifestDocument, info: KindInfo | undefined): Finding[] {
  const out: Finding[] = [];
  if (doc.role === 'kustomization') {
    generatorFindings(doc.value, out);
    return out;
  }
  if (info?.apiVersion === 'v1' && info.kind === 'Secret') {
    for (const field of ['data', 'stringData']) {
      const map = doc.value[field];
      if (!isObject(map)) continue;
      for (const key of Object.keys(map).sort()) {
        if (SENSITIVE_KEY.test(key) && nonEmpty(map[key])) {
          out.push({ path: [field, key], message: `Secret holds a literal value for '${key}'; ${FIX}` });
        }
      }
    }
  }
  envFindings(doc.value, [], out);
  return out;
}

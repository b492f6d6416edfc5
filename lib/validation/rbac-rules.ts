import { Finding, isObject, show } from './field-path';
import { ManifestDocument } from './manifest-documents';
import { KindInfo } from './schema-validator';

/** A reviewed exception to the RBAC rules: which role, and why it needs what it asks for. */
export interface RbacAllowance {
  /** The role: `namespace/name` for a Role, `name` for a ClusterRole. */
  readonly role: string;
  /** Why the role needs it; shown in reviews, and must not be empty. */
  readonly reason: string;
}

/** The allow-lists the RBAC rules accept, with their reasons. */
export interface RbacAllowLists {
  /** Roles and ClusterRoles that may read or write Secrets. */
  readonly secretAccess: readonly RbacAllowance[];
  /** ClusterRoles we may define (and bind with a ClusterRoleBinding). */
  readonly clusterRoles: readonly RbacAllowance[];
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** Built-in ClusterRoles that grant (nearly) everything; never bound by us. */
const POWERFUL_CLUSTER_ROLES = new Set(['cluster-admin', 'admin', 'edit']);

function allowed(list: readonly RbacAllowance[], role: string): boolean {
  return list.some((a) => a.role === role && a.reason.trim() !== '');
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Least privilege for the RBAC objects we define: no wildcards in rules, no access to Secrets without a reviewed
 * reason, no ClusterRoles or ClusterRoleBindings without one, and never a binding to cluster-admin, admin or edit.
 */
export function rbacFindings(doc: ManifestDocument, info: KindInfo, namespace: string | undefined, allow: RbacAllowLists): Finding[] {
  const out: Finding[] = [];
  if (!info.apiVersion.startsWith(`${RBAC_GROUP}/`) || doc.role !== 'object') return out;
  const meta = isObject(doc.value.metadata) ? doc.value.metadata : {};
  const name = typeof meta.name === 'string' ? meta.name : '';
  const cluster = info.kind === 'ClusterRole' || info.kind === 'ClusterRoleBinding';

  if (info.kind === 'Role' || info.kind === 'ClusterRole') {
    const roleKey = info.kind === 'Role' ? `${namespace ?? ''}/${name}` : name;
    if (info.kind === 'ClusterRole' && !allowed(allow.clusterRoles, roleKey)) {
      out.push({
        path: [],
        message: `ClusterRole '${name}' grants access in every namespace; use a namespaced Role, or add { role: '${roleKey}', reason } `
          + 'to the ClusterRole allow-list',
      });
    }
    if (isObject(doc.value.aggregationRule)) {
      out.push({ path: ['aggregationRule'], message: `ClusterRole '${name}' aggregates other roles, so its rights grow unseen; list its rules explicitly` });
    }
    const rules = Array.isArray(doc.value.rules) ? doc.value.rules : [];
    rules.forEach((rule, i) => {
      if (!isObject(rule)) return;
      for (const field of ['apiGroups', 'resources', 'verbs', 'nonResourceURLs']) {
        strings(rule[field]).forEach((value, j) => {
          if (value === '*' || (field === 'nonResourceURLs' && value.endsWith('*')) || (field === 'resources' && value.includes('*'))) {
            out.push({
              path: ['rules', i, field, j],
              message: `${info.kind} '${name}' grants ${show(value)} in ${field}; wildcards also grant whatever is added later. `
                + `List the ${field} it needs`,
            });
          }
        });
      }
      const groups = strings(rule.apiGroups);
      const resources = strings(rule.resources);
      const coreGroup = groups.includes('') || groups.includes('*');
      const secretIndex = resources.findIndex((r) => r === 'secrets' || r.startsWith('secrets/'));
      if (coreGroup && secretIndex >= 0 && !allowed(allow.secretAccess, roleKey)) {
        out.push({
          path: ['rules', i, 'resources', secretIndex],
          message: `${info.kind} '${name}' can ${strings(rule.verbs).join(', ') || 'access'} Secrets; remove 'secrets', or add `
            + `{ role: '${roleKey}', reason } to the Secret-access allow-list`,
        });
      }
    });
  }

  if (info.kind === 'RoleBinding' || info.kind === 'ClusterRoleBinding') {
    const ref = isObject(doc.value.roleRef) ? doc.value.roleRef : {};
    const refName = typeof ref.name === 'string' ? ref.name : '';
    if (ref.kind === 'ClusterRole' && POWERFUL_CLUSTER_ROLES.has(refName)) {
      out.push({
        path: ['roleRef', 'name'],
        message: `${info.kind} '${name}' binds the built-in ClusterRole '${refName}', which grants nearly everything; bind a Role with only the rules needed`,
      });
    } else if (cluster && !allowed(allow.clusterRoles, refName)) {
      out.push({
        path: ['roleRef', 'name'],
        message: `ClusterRoleBinding '${name}' grants ClusterRole '${refName}' in every namespace; use a RoleBinding, or add `
          + `{ role: '${refName}', reason } to the ClusterRole allow-list`,
      });
    }
  }
  return out;
}

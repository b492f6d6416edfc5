import { problemsOf } from './util';

const role = (kind: string, name: string, rules: unknown[], ns?: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: ns ? { name, namespace: ns } : { name }, rules,
});

test('fails on wildcards in apiGroups, resources and verbs', () => {
  expect(problemsOf({ 'm.yaml': [role('Role', 'r', [{ apiGroups: ['*'], resources: ['pods', 'deployments/*'], verbs: ['*'] }], 'a')] })).toEqual([
    "m.yaml: Role a/r: rules[0].apiGroups[0]: Role 'r' grants '*' in apiGroups; wildcards also grant whatever is added later. List the apiGroups it needs",
    "m.yaml: Role a/r: rules[0].resources[1]: Role 'r' grants 'deployments/*' in resources; wildcards also grant whatever is added later. "
      + 'List the resources it needs',
    "m.yaml: Role a/r: rules[0].verbs[0]: Role 'r' grants '*' in verbs; wildcards also grant whatever is added later. List the verbs it needs",
  ]);
});

test('fails on access to Secrets unless the allow-list says why', () => {
  const files = { 'm.yaml': [role('Role', 'reader', [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get'] }], 'a')] };
  expect(problemsOf(files)).toEqual([
    "m.yaml: Role a/reader: rules[0].resources[1]: Role 'reader' can get Secrets; remove 'secrets', or add { role: 'a/reader', reason } "
      + 'to the Secret-access allow-list',
  ]);
  expect(problemsOf(files, { secretAccessAllowList: [{ role: 'a/reader', reason: 'reads the CNPG app credentials' }] })).toEqual([]);
  expect(problemsOf(files, { secretAccessAllowList: [{ role: 'a/reader', reason: ' ' }] })).toEqual([
    "(validation options): RBAC allow-list entry for 'a/reader' has no reason; say why the role needs it",
    "m.yaml: Role a/reader: rules[0].resources[1]: Role 'reader' can get Secrets; remove 'secrets', or add { role: 'a/reader', reason } "
      + 'to the Secret-access allow-list',
  ]);
});

test('fails on our ClusterRoles and ClusterRoleBindings unless allow-listed, and always on binding cluster-admin', () => {
  const files = {
    'm.yaml': [
      role('ClusterRole', 'viewer', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]),
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'viewer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'viewer' }, subjects: [] },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'god', namespace: 'a' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [] },
    ],
  };
  expect(problemsOf(files)).toEqual([
    "m.yaml: ClusterRole viewer: ClusterRole 'viewer' grants access in every namespace; use a namespaced Role, or add { role: 'viewer', reason } "
      + 'to the ClusterRole allow-list',
    "m.yaml: ClusterRoleBinding viewer: roleRef.name: ClusterRoleBinding 'viewer' grants ClusterRole 'viewer' in every namespace; "
      + "use a RoleBinding, or add { role: 'viewer', reason } to the ClusterRole allow-list",
    "m.yaml: RoleBinding a/god: roleRef.name: RoleBinding 'god' binds the built-in ClusterRole 'cluster-admin', which grants nearly everything; "
      + 'bind a Role with only the rules needed',
  ]);
  expect(problemsOf(files, { clusterRoleAllowList: [{ role: 'viewer', reason: 'the dashboard lists pods cluster-wide' }] })).toEqual([
    "m.yaml: RoleBinding a/god: roleRef.name: RoleBinding 'god' binds the built-in ClusterRole 'cluster-admin', which grants nearly everything; "
      + 'bind a Role with only the rules needed',
  ]);
});

import { ResolvedBackupObjectStoreConfig } from '../config/homelab-config';
import { BootstrapStep } from '../constructs/bootstrap/bootstrap-step';

/**
 * Makes the runbook apply the credentials of the object stores a Phase-0 component reads or writes (a Phase-0 CNPG
 * cluster's archive, Forgejo's dumps) before the step that needs them: Argo CD, which delivers every other Secret
 * (sops-secrets), runs only after Phase 0. Each Secret comes from a local env file the operator keeps off the cluster
 * (`~/.config/homelab/<secret>.env`, lines `KEY=value`), checked before the first change; one file per Secret name, so
 * stores that share a credential share its file. A CA bundle Secret (`caSecret`) must exist already: it is not a
 * credential, and the runbook says so.
 *
 * A Secret one of `appliedBefore` (steps that always run before `step`) already installs is not installed again: two
 * steps applying it with their own field managers would each take it over, so every re-run would rewrite it.
 */
export function installObjectStoreCredentials(step: BootstrapStep, namespace: string,
  stores: readonly (ResolvedBackupObjectStoreConfig | undefined)[], purpose: string, appliedBefore: readonly BootstrapStep[] = []): void {
  const seen = new Set([step, ...appliedBefore].flatMap((s) => s.preconditions)
    .map((p) => ('name' in p && 'namespace' in p ? `${p.namespace}/${p.name}` : '')));
  for (const store of stores) {
    if (store === undefined) continue;
    const k = store.credentials;
    if (!seen.has(`${namespace}/${k.secretName}`)) {
      seen.add(`${namespace}/${k.secretName}`);
      const file = `~/.config/homelab/${k.secretName}.env`;
      const keys = [k.accessKeyIdKey, k.secretAccessKeyKey, ...(k.regionKey ? [k.regionKey] : [])];
      step.addPrecondition({
        kind: 'secret-from-env-file',
        namespace,
        name: k.secretName,
        variable: `${k.secretName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_ENV_FILE`,
        defaultPath: file,
        format: 'env-file',
        envKeys: keys,
        hint: `Save the object store's keys for ${purpose} in ${file} (chmod 600), one per line without quotes: ` +
          `${keys.map((key) => `${key}=<value>`).join(', ')}. Keep a copy off the cluster: a restore cannot start without it.`,
      });
    }
    if (store.caSecret && !seen.has(`${namespace}/${store.caSecret.name}`)) {
      seen.add(`${namespace}/${store.caSecret.name}`);
      step.addPrecondition({
        kind: 'secret-exists',
        namespace,
        name: store.caSecret.name,
        hint: `Create it with the CA bundle of ${store.endpointURL}: kubectl create secret generic ${store.caSecret.name} ` +
          `-n ${namespace} --from-file=${store.caSecret.key}=<ca.pem>`,
      });
    }
  }
}

import { ApiObject, JsonPatch } from 'cdk8s';
import { Capability, ContainerSecurityContextProps, LabelSelector, SeccompProfileType, Service, Workload } from 'cdk8s-plus-30';

/** Where cdk8s-plus puts its `cdk8s.io/metadata.addr` label in a workload's pod template. */
const ADDRESS_LABEL_PATCH_PATH = '/spec/template/metadata/labels/cdk8s.io~1metadata.addr';

/**
 * Makes `workload` select exactly `labels` (its pods carry them), never cdk8s-plus's `cdk8s.io/metadata.addr`:
 * that label is a construct path, it changes when code is refactored, and a Deployment's selector is
 * immutable. Create the workload with `select: false`; cdk8s-plus still adds the label to the pod template,
 * so it is patched out.
 */
export function selectStably(workload: Workload, labels: Readonly<Record<string, string>>): void {
  workload.select(LabelSelector.of({ labels: { ...labels } }));
  ApiObject.of(workload).addJsonPatch(JsonPatch.remove(ADDRESS_LABEL_PATCH_PATH));
}

/**
 * Drops the `externalIPs: []` cdk8s-plus writes into every Service it synthesizes. kube-apiserver stores no
 * empty list, so each server-side apply of that field differs from the stored object and writes the Service
 * again (a new resourceVersion on every runbook run; found by test/cluster/runbook.test.ts against
 * kube-apiserver 1.30). Without the field, a re-apply is a true no-op.
 */
export function withoutEmptyExternalIps(service: Service): Service {
  ApiObject.of(service).addJsonPatch(JsonPatch.remove('/spec/externalIPs'));
  return service;
}

/** The Pod Security *restricted* container security context, in cdk8s-plus terms, for `uid`/`gid`. */
export function restrictedPlusSecurityContext(uid: number, gid: number = uid): ContainerSecurityContextProps {
  return {
    ensureNonRoot: true,
    user: uid,
    group: gid,
    privileged: false,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: [Capability.ALL] },
    seccompProfile: { type: SeccompProfileType.RUNTIME_DEFAULT },
  };
}

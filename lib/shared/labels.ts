/** Recommended labels. Selectors use only `name` and `instance`, which never change for a workload. */

/** Label key of the component's name (e.g. `forgejo`). */
export const NAME_LABEL = 'app.kubernetes.io/name';
/** Label key of the instance (e.g. `forgejo` in namespace `cicd`). */
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
/** Label key of the managing tool. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** Label key of the higher-level application a component belongs to. */
export const PART_OF_LABEL = 'app.kubernetes.io/part-of';

/** The stable selector of a workload: exactly what its Service and Deployment select on. */
export function selectorLabels(name: string, instance: string): Record<string, string> {
  return { [NAME_LABEL]: name, [INSTANCE_LABEL]: instance };
}

/** Labels stamped on every object this program defines. */
export const COMMON_LABELS: Readonly<Record<string, string>> = {
  [MANAGED_BY_LABEL]: 'homelab-gitops',
  [PART_OF_LABEL]: 'homelab',
};

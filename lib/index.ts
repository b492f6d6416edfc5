/**
 * The construct library of homelab-gitops: typed cdk8s constructs for a Talos/Kubernetes homelab's GitOps
 * bring-up (CloudNativePG clusters and databases with the Job that waits for them, Forgejo with Redis, Argo CD
 * with its health checks, repository credential, Applications and AppProject, Phase-0 bootstrap steps). They
 * take their own props and know nothing of the homelab config; the homelab program composes them.
 */
export * from './constructs/argocd';
export * from './constructs/bootstrap';
export * from './constructs/cilium';
export * from './constructs/cnpg';
export * from './constructs/forgejo';
export * from './constructs/longhorn';
export * from './constructs/namespaces';
export * from './constructs/temporal';
export { SYNC_WAVES, SYNC_WAVE_ANNOTATION } from './shared/sync-waves';
export type { SyncWave } from './shared/sync-waves';
export { parseGithubSeed } from './shared/git-urls';
export type { ForgejoEndpoint, GithubSeed } from './shared/git-urls';
export type { PodSecurityLevel } from './shared/pod-security';

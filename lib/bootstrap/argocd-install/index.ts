export * from './argocd-install';
export * from './health-checks';

export * from './argo-glob';
export * from './audit-coverage';
export * from './coverage-model';
export * from './format-report';
export * from './missing-paths';
export * from './repo-tree';
export * from './run-coverage';

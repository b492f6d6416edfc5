export * from './output-problem';
export * from './rbac-rules';
export * from './validate-output';

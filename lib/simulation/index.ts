export * from './argocd-sync';
export * from './barman-cloud';
export * from './bring-up';
export * from './controllers';
export * from './health';
export * from './lua51-evaluator';
export * from './scenarios';
export * from './timeline';

export * from './review-objects';
export * from './object-diff';
export * from './cnpg-webhook-rules';
export * from './review-changes';
export * from './render-review';
export * from './git-tree';
export * from './synth-warnings';

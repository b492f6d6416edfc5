export * from './temporal-application';
export * from './temporal-values';

export * from './homelab-config';
export * from './argocd-config';
export * from './parse';
export * from './rules';
export * from './schema';
export { REFERENCE_HOMELAB } from './defaults';
export { DEFAULT_ARGOCD, CHART_PINS } from './default-catalog';

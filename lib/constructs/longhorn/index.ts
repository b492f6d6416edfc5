export * from './longhorn-install';

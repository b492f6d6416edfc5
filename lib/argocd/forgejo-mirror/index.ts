export * from './forgejo-mirror-job';

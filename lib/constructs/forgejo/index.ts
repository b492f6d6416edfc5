export * from './forgejo-mirror-job';
export * from './forgejo-server';
export * from './redis';
export * from './forgejo-admin-job';

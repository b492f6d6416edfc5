export * from './forgejo-mirror-job';
export * from './forgejo-server';
export * from './redis';
export * from './forgejo-admin-job';
export * from './dump-store';
export * from './forgejo-backup-cron-job';
export * from './forgejo-restore';

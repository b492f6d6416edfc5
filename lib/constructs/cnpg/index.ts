export * from './cnpg-cluster';
export * from './cnpg-database';
export * from './cnpg-operator';
export * from './wait-for-postgres-job';
export * from './barman-object-store';
export * from './cnpg-scheduled-backup';
export * from './barman-cloud-plugin';

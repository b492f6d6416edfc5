export * from './forgejo-server';
export * from './redis';

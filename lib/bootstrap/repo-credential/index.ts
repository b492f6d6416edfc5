export * from './repo-credential';

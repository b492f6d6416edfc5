export * from './data-schemas';

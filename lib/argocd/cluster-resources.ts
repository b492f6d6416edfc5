// Moved to lib/config (config vocabulary, pure data); re-exported for the Argo CD constructs.
export * from '../config/cluster-resources';

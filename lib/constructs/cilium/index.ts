export * from './cilium-install';

export * from './pod-security-namespace';

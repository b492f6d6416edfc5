// Moved to lib/config (the reference catalog uses it); re-exported for the Argo CD constructs.
export { podSecurityNamespaceMetadata } from '../config/pod-security';

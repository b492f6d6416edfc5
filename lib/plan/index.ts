export * from './homelab-plan';
export * from './mermaid';
export * from './render-overview';
export * from './render-plan-text';
export * from './text-layout';

export * from './bootstrap-step';
export * from './order-steps';
export * from './waits';

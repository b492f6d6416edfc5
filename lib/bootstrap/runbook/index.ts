export * from './render-runbook';

// The reference homelab's runbook (the committed dist/) end to end against kube-apiserver: see runbook-cases.ts.
import * as path from 'path';
import { ROOT } from './harness/output-tree';
import { describeRunbook } from './runbook-cases';

describeRunbook({ name: 'reference homelab (committed dist/)', dist: () => path.join(ROOT, 'dist'), killInEachStep: true });

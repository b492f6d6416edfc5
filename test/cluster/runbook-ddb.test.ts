// The ddb example's runbook (a fresh synth of examples/ddb-cluster.config.ts) end to end against kube-apiserver:
// see runbook-cases.ts. Its Forgejo database role is a Secret the operator creates, which the run names first.
import * as path from 'path';
import { ROOT, synthesize } from './harness/output-tree';
import { describeRunbook } from './runbook-cases';

describeRunbook({ name: 'ddb example (fresh synth)', dist: () => synthesize(path.join(ROOT, 'examples', 'ddb-cluster.config.ts')), killInEachStep: false });

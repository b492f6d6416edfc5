import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { DependencyCycleError, orderSteps } from '../../../lib/constructs/bootstrap/order-steps';
import { planSteps } from '../../../lib/output/render-steps';

function step(app: any, name: string): BootstrapStep {
  return new BootstrapStep(app, name, { stepName: name, summary: name });
}

describe('orderSteps', () => {
  test('puts every step after what it depends on; independent steps keep the order they were defined in', () => {
    // GIVEN
    const app = Testing.app();
    const [root, forgejo, ns, db, argocd] = ['root', 'forgejo', 'ns', 'db', 'argocd'].map((n) => step(app, n));
    root.dependsOn(argocd, 'CRDs');
    forgejo.dependsOn(db, 'database');
    db.dependsOn(ns, 'namespace');
    argocd.dependsOn(ns, 'namespace');
    // WHEN
    const order = orderSteps([root, forgejo, ns, db, argocd]).map((s) => s.stepName);
    // THEN
    expect(order).toEqual(['ns', 'argocd', 'root', 'db', 'forgejo']);
  });

  test('is the chart order cdk8s itself writes (app.synth() numbers dependent charts 0000-, 0001-, ...)', () => {
    // GIVEN
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'order-steps-'));
    const app = Testing.app({ outdir });
    const [root, forgejo, ns, db, argocd] = ['root', 'forgejo', 'ns', 'db', 'argocd'].map((n) => step(app, n));
    for (const s of [root, forgejo, ns, db, argocd]) new k8s.KubeConfigMap(s, 'Cm', { metadata: { name: s.stepName } });
    root.dependsOn(argocd, 'CRDs');
    forgejo.dependsOn(db, 'database');
    db.dependsOn(ns, 'namespace');
    argocd.dependsOn(ns, 'namespace');
    // WHEN
    const order = orderSteps([root, forgejo, ns, db, argocd]).map((s) => s.stepName);
    app.synth();
    // THEN
    const written = fs.readdirSync(outdir).sort().map((f) => f.replace(/^\d{4}-(.*)\.k8s\.yaml$/, '$1'));
    expect(written).toEqual(order);
    fs.rmSync(outdir, { recursive: true, force: true });
  });

  test('derives a step dependency from a construct dependency that crosses steps', () => {
    const app = Testing.app();
    const a = step(app, 'a');
    const b = step(app, 'b');
    const job = new k8s.KubeConfigMap(b, 'Job', { metadata: { name: 'job' } });
    const user = new k8s.KubeConfigMap(a, 'User', { metadata: { name: 'user' } });
    user.node.addDependency(job);
    expect(orderSteps([a, b]).map((s) => s.stepName)).toEqual(['b', 'a']);
  });

  test('throws naming the whole cycle and why each step needs the next', () => {
    const app = Testing.app();
    const [ns, forgejo, root] = ['namespaces', 'forgejo', 'argocd-root'].map((n) => step(app, n));
    forgejo.dependsOn(ns, 'namespace');
    root.dependsOn(forgejo, 'the root app reads the repository Forgejo serves');
    forgejo.dependsOn(root, 'Forgejo is an Application of the root app');
    expect(() => orderSteps([ns, forgejo, root])).toThrow(DependencyCycleError);
    expect(() => orderSteps([ns, forgejo, root])).toThrow([
      'bootstrap order has a dependency cycle: forgejo -> argocd-root -> forgejo',
      '    forgejo needs argocd-root: Forgejo is an Application of the root app',
      '    argocd-root needs forgejo: the root app reads the repository Forgejo serves',
      '  Break the cycle: a Phase-0 component must not depend on anything that only exists after it.',
    ].join('\n'));
  });

  test('throws for a step depending on itself', () => {
    const s = step(Testing.app(), 'a');
    expect(() => s.dependsOn(s, 'x')).toThrow('bootstrap step \'a\' cannot depend on itself');
  });

  test('numbers files from the derived order', () => {
    const app = Testing.app();
    const late = step(app, 'late');
    const early = step(app, 'early');
    new k8s.KubeNamespace(early, 'Ns', { metadata: { name: 'x' } });
    late.dependsOn(early, 'x');
    expect(planSteps([late, early]).map((p) => p.fileName)).toEqual(['01-early.yaml', '02-late.yaml']);
  });
});

import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdk8s';
import { BootstrapStep } from '../../lib/constructs/bootstrap/bootstrap-step';
import { planSteps } from '../../lib/output/render-steps';
import { renderRunbook } from '../../lib/output/render-runbook';
import { RunbookSandbox, writeRunbook } from '../fixtures/runbook-fixture';

const YES = ['--yes'];
const NOTE = 'its bootstrap ran when it was created; restoreFrom is not applied again';
const ABSENT = 'it is created now and recovers server forgejo-db from its object store (restoreFrom)';

/**
 * A kubectl that answers the note's `get clusters.postgresql.cnpg.io/NAME` as $FAKE_CLUSTER says (`exists`, `absent`,
 * or an API error) and hands every other call to the recording kubectl of the other runbook tests, which logs them.
 */
const CLUSTER_KUBECTL = `#!/bin/sh
set -eu
args="$*"
case "$1" in --request-timeout=*) shift ;; esac
if [ "$1" = get ] && [ "\${2%%/*}" = clusters.postgresql.cnpg.io ]; then
  printf '%s\\n' "$args" >>"$KUBECTL_LOG"
  case "$FAKE_CLUSTER" in
    exists) echo "cluster.postgresql.cnpg.io/\${2#*/}"; exit 0 ;;
    absent) echo "Error from server (NotFound): clusters.postgresql.cnpg.io \\"\${2#*/}\\" not found" >&2; exit 1 ;;
    *) echo "$FAKE_CLUSTER" >&2; exit 1 ;;
  esac
fi
exec "$RECORDING_KUBECTL" "$@"
`;

/** A step that restores a Cluster, with the note bootstrap-plan.ts adds for a Phase-0 cluster with restoreFrom. */
function restoreSandbox(): RunbookSandbox {
  const app = Testing.app();
  const db = new BootstrapStep(app, 'Db', { stepName: 'postgres-forgejo-db', summary: 'a cluster restored from a backup' });
  db.addPrecondition({
    kind: 'note-when-exists', resource: 'clusters.postgresql.cnpg.io/forgejo-db', namespace: 'cicd', description: 'Cluster cicd/forgejo-db',
    whenExists: NOTE, whenAbsent: ABSENT,
  });
  db.addPrecondition({ kind: 'generated-secret', namespace: 'cicd', name: 'db-key', key: 'key', bytes: 16 });
  const box = new RunbookSandbox(writeRunbook(planSteps([db]), { minKubectlVersion: '1.29' }));
  const bin = path.join(path.dirname(box.dir), 'bin');
  fs.renameSync(path.join(bin, 'kubectl'), path.join(bin, 'recording-kubectl'));
  fs.writeFileSync(path.join(bin, 'kubectl'), CLUSTER_KUBECTL, { mode: 0o755 });
  return box;
}

describe('bootstrap.sh: the note on a Cluster that exists before its restoring step', () => {
  let box: RunbookSandbox;
  const env = (cluster: string) => ({ FAKE_CLUSTER: cluster, RECORDING_KUBECTL: path.join(path.dirname(box.dir), 'bin', 'recording-kubectl') });
  beforeEach(() => { box = restoreSandbox(); });

  test('a Cluster that exists: the note says restoreFrom is not applied again, before anything of the step, which still applies', () => {
    // WHEN
    const r = box.run(YES, env('exists'));

    // THEN
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`  → Cluster cicd/forgejo-db exists: ${NOTE}\n`);
    expect(r.stdout).not.toContain('does not exist');
    const get = r.calls.indexOf('get clusters.postgresql.cnpg.io/forgejo-db -o name -n cicd');
    expect(get).toBeGreaterThan(-1);
    // read before the step's first change (its generated Secret), and the step is applied all the same
    expect(get).toBeLessThan(r.calls.findIndex((c) => c.startsWith('get secret db-key')));
    expect(r.calls).toContain('apply --server-side --force-conflicts --field-manager=homelab-bootstrap-postgres-forgejo-db -f <dir>/01-postgres-forgejo-db.yaml');
    expect(r.stdout).toContain('Bootstrap complete: 1 steps applied and ready.');
  });

  test('no such Cluster (NotFound): the other note, that the Cluster is created and restored now', () => {
    const r = box.run(YES, env('absent'));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`  → Cluster cicd/forgejo-db does not exist: ${ABSENT}\n`);
    expect(r.stdout).not.toContain(NOTE);
    expect(r.stderr).not.toContain('NotFound');
    expect(r.calls.filter((c) => c.startsWith('apply'))).toHaveLength(1);
  });

  test('any other answer stops the runbook before the step changes anything, naming the Cluster', () => {
    const r = box.run(YES, env('Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('✗ FAILED: read Cluster cicd/forgejo-db, to tell whether it exists already');
    expect(r.stderr).toContain('    Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout');
    expect(r.stderr).toContain('inspect: kubectl get clusters.postgresql.cnpg.io/forgejo-db -o name -n cicd');
    expect(r.calls.filter((c) => c.startsWith('apply') || c.startsWith('create') || c.startsWith('get secret'))).toEqual([]);
  });

  test('a dry run plans the note and asks nothing', () => {
    const r = box.run(['--dry-run'], env('exists'));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`  note    when Cluster cicd/forgejo-db exists: ${NOTE}; otherwise: ${ABSENT}\n`);
    expect(r.calls).toEqual([]);
  });

  test('without whenAbsent nothing is printed for a missing object; a bad resource or an empty note is refused', () => {
    const app = Testing.app();
    const step = new BootstrapStep(app, 'S', { stepName: 's', summary: 's' });
    step.addPrecondition({ kind: 'note-when-exists', resource: 'clusters.postgresql.cnpg.io/db', description: 'Cluster db', whenExists: 'kept' });
    expect(renderRunbook(planSteps([step]), { minKubectlVersion: '1.29' })).toContain("note_when_exists clusters.postgresql.cnpg.io/db '' 'Cluster db' kept\n");

    const bad = (resource: string, whenExists = 'kept') => {
      const s = new BootstrapStep(Testing.app(), 'S', { stepName: 's', summary: 's' });
      s.addPrecondition({ kind: 'note-when-exists', resource, namespace: 'ns', description: 'Cluster db', whenExists });
      return () => renderRunbook(planSteps([s]), { minKubectlVersion: '1.29' });
    };
    expect(bad('Cluster db')).toThrow("bootstrap step 's': note-when-exists resource must be '<resource>/<name>' in kubectl's lower-case form " +
      "(e.g. 'clusters.postgresql.cnpg.io/forgejo-db'), got 'Cluster db'");
    expect(bad('clusters.postgresql.cnpg.io/db', ' ')).toThrow("bootstrap step 's': note-when-exists on clusters.postgresql.cnpg.io/db needs a whenExists, printed by the runbook");
  });
});

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { synthesizeToDisk, unmaintainedPinsWarning } from '../../lib/cli/synth';
import { runPlan } from '../../lib/cli/run-plan';
import { configWarnings } from '../../lib/plan/config-warnings';
import { parseHomelabConfig } from '../../lib/config/parse';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { BARMAN_CLOUD_PLUGIN_MANIFEST_URL } from '../../lib/shared/pins';

/** The reference homelab with Forgejo's volume shrunk and forgejo-db down to two instances. */
const DANGEROUS: HomelabConfig = {
  ...REFERENCE_HOMELAB,
  forgejo: { ...REFERENCE_HOMELAB.forgejo, storageSize: '10Gi' },
  postgresClusters: { ...REFERENCE_HOMELAB.postgresClusters, 'forgejo-db': { ...REFERENCE_HOMELAB.postgresClusters!['forgejo-db'], instances: 2 } },
};

/** What synth prints on every run of these configs, whatever changed: the pins that get no more fixes (test/plan/pins.test.ts). */
const PINS_WARNING = unmaintainedPinsWarning(synthesizeHomelab(REFERENCE_HOMELAB).plan.pins);

describe('warnings for a valid but dangerous change, against the output before it', () => {
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-warnings-')); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('synth prints each one, writes the output anyway (exit 0), and is quiet once the output is the committed one', () => {
    // GIVEN the reference homelab's output
    const out = path.join(tmp, 'dist');
    expect(PINS_WARNING).toMatch(/^Warning: this output deploys 5 components that get no more fixes/);
    expect(synthesizeToDisk(REFERENCE_HOMELAB, { outdir: out })).toMatchObject({ exitCode: 0, stderr: PINS_WARNING });
    // WHEN a config shrinks a volume and removes an instance of a Phase-0 cluster
    const r = synthesizeToDisk(DANGEROUS, { outdir: out });
    // THEN synth says so, naming the objects and what happens
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`Warning: compared with ${out}/ before it, this output\n` +
      '  - Cluster cicd/forgejo-db (bootstrap/06-postgres-forgejo-db.yaml): instances 3 → 2 on a Phase-0 cluster: only the runbook applies it ' +
      '(re-run it from 06-postgres-forgejo-db); CNPG deletes the removed instances and their volumes\n' +
      '  - PersistentVolumeClaim cicd/forgejo-data (bootstrap/07-forgejo.yaml): the apply will fail: spec.resources.requests.storage shrinks ' +
      'from 20Gi to 10Gi: the API server refuses it (field can not be less than previous value)\n' +
      '  - PersistentVolumeClaim cicd/forgejo-data (bootstrap/07-forgejo.yaml): loses data: the volume shrinks from 20Gi to 10Gi: only a new ' +
      'claim is smaller, and a new claim starts empty\n' +
      'Review it with `npm run diff` before you commit; the runbook and Argo CD apply it as it is.\n' + PINS_WARNING);
    // and the same config again is no change
    expect(synthesizeToDisk(DANGEROUS, { outdir: out }).stderr).toBe(PINS_WARNING);
  });

  test('a Phase-0 object removed: the runbook never deletes it, so synth says how', () => {
    const out = path.join(tmp, 'dist');
    synthesizeToDisk(REFERENCE_HOMELAB, { outdir: out });
    const { backup: _backup, ...forgejo } = REFERENCE_HOMELAB.forgejo;
    const r = synthesizeToDisk({ ...REFERENCE_HOMELAB, forgejo }, { outdir: out });
    expect(r.stderr).toContain('  - CronJob cicd/forgejo-backup (bootstrap/07-forgejo.yaml): removed from Phase 0 (07-forgejo): the runbook never ' +
      'deletes what it applied, so it keeps running until you delete it (kubectl delete cronjob -n cicd forgejo-backup)\n');
  });

  test('no previous output, no warning', () => {
    expect(synthesizeToDisk(DANGEROUS, { outdir: path.join(tmp, 'fresh') })).toMatchObject({ exitCode: 0, stderr: PINS_WARNING });
  });

  test('npm run plan prints the same warnings against the committed output, after the plan', () => {
    const out = path.join(tmp, 'dist');
    synthesizeToDisk(REFERENCE_HOMELAB, { outdir: out });
    let stdout = '';
    let stderr = '';
    const code = runPlan(DANGEROUS, { color: 'never', committed: out }, {
      stdout: { write: (t: string) => { stdout += t; } }, stderr: { write: (t: string) => { stderr += t; } }, isTTY: false, env: {},
    });
    expect(code).toBe(0);
    expect(stdout).toContain('Phase 0');
    expect(stderr).toContain('instances 3 → 2 on a Phase-0 cluster');
    expect(stderr).toContain('loses data: the volume shrinks from 20Gi to 10Gi');
  });
});

/** The reference pins leave the plugin's release manifest unpinned (lib/shared/manifest-integrity.ts). */
const UNPINNED_PLUGIN = `manifestSha256 leaves ${BARMAN_CLOUD_PLUGIN_MANIFEST_URL} 'unpinned': the runbook applies this release manifest `
  + 'without checking its bytes (it prints its sha256 to pin).';

describe('configWarnings: settings that lose data or protection by design, listed in the plan and dist/README.md', () => {
  test('for the reference homelab, only the Barman Cloud plugin\'s release manifest, whose sha256 is not known (unpinned)', () => {
    expect(configWarnings(parseHomelabConfig(REFERENCE_HOMELAB))).toEqual([UNPINNED_PLUGIN]);
  });

  test('each one names its config path', () => {
    const { backup: _backup, ...forgejo } = REFERENCE_HOMELAB.forgejo;
    const { backup: _dbBackup, ...forgejoDb } = REFERENCE_HOMELAB.postgresClusters!['forgejo-db'];
    const config: HomelabConfig = {
      ...REFERENCE_HOMELAB,
      forgejo,
      postgresClusters: { ...REFERENCE_HOMELAB.postgresClusters, 'forgejo-db': forgejoDb },
      databases: { ...REFERENCE_HOMELAB.databases, authentik: { ...REFERENCE_HOMELAB.databases!.authentik, reclaimPolicy: 'delete' } },
      network: { isolatePhase0: false },
    };
    expect(configWarnings(parseHomelabConfig(config))).toEqual([
      'databases.authentik.reclaimPolicy is \'delete\': removing the database from the config drops it and its data in PostgreSQL.',
      'forgejo.backup is not set: a rebuild loses every git repository Forgejo holds.',
      UNPINNED_PLUGIN,
      'network.isolatePhase0 is false: any pod in the cluster may reach Forgejo, its Redis, its database and Argo CD.',
      'postgresClusters.forgejo-db is a Phase-0 cluster without backup: a rebuild loses its data.',
    ]);
    // and dist/README.md lists them, under their own heading
    const readme = synthesizeHomelab(config).tree.get('README.md')!;
    expect(readme).toContain('## Warnings\n\nValid settings that lose data or protection by design, and pinned components that get no more ' +
      'fixes:\n\n- databases.authentik.reclaimPolicy is');
    expect(readme).toContain('\n- forgejo.backup is not set: a rebuild loses every git repository Forgejo holds.\n');
    // the reference homelab's Warnings hold its pins that get no more fixes and the plugin's unpinned release manifest
    const reference = synthesizeHomelab(REFERENCE_HOMELAB).tree.get('README.md')!;
    const referenceWarnings = reference.slice(reference.indexOf('## Warnings')).split('\n\n')[2].split('\n').filter((l) => l !== '');
    expect(referenceWarnings).toContain(`- ${UNPINNED_PLUGIN}`);
    expect(referenceWarnings.filter((l) => l !== `- ${UNPINNED_PLUGIN}`).every((l) => / is (end-of-life|retired|archived) since /.test(l)))
      .toBe(true);
  });
});

import { Chart, Testing } from 'cdk8s';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { DumpStore } from '../../../lib/constructs/forgejo/dump-store';
import { ForgejoServer } from '../../../lib/constructs/forgejo/forgejo-server';

/** The object store the Forgejo backup and restore tests dump to and read from. */
export const STORE: DumpStore = {
  endpointUrl: 'https://s3.example.net',
  bucket: 'homelab-backups',
  folder: 'homelab/forgejo',
  accessKeyId: { name: 'forgejo-backup-s3', key: 'ACCESS_KEY_ID' },
  secretAccessKey: { name: 'forgejo-backup-s3', key: 'ACCESS_SECRET_KEY' },
};

/** A chart with Forgejo in `cicd` on its own CNPG cluster. */
export function makeForgejo(): { chart: Chart; forgejo: ForgejoServer } {
  const chart = Testing.chart();
  const cluster = new CnpgCluster(chart, 'ForgejoDb', { name: 'forgejo-db', namespace: 'cicd', initdbDatabase: 'forgejo' });
  const forgejo = new ForgejoServer(chart, 'Forgejo', { namespace: 'cicd', database: { cluster, pgName: 'forgejo', owner: 'forgejo' } });
  return { chart, forgejo };
}

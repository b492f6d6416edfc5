import { k8s } from 'cdk8s-plus-30';
import { urlCredentialProblem } from '../../shared/secrets';
import { Precondition } from '../bootstrap/waits';

/** A key of a Secret in Forgejo's namespace. */
export interface DumpStoreSecretKey {
  /** Name of the Secret. */
  readonly name: string;
  /** Key of the value in the Secret's data. */
  readonly key: string;
}

/** A folder of an S3-compatible object store that holds Forgejo's dumps; credentials by Secret reference only. */
export interface DumpStore {
  /** Endpoint of the S3-compatible service: scheme, host and port, e.g. `https://s3.example.net` (never with credentials). */
  readonly endpointUrl: string;
  /** Bucket of the dumps. */
  readonly bucket: string;
  /** Folder of the dumps inside the bucket, without leading or trailing '/', e.g. `homelab/forgejo`. */
  readonly folder: string;
  /** Secret and key holding the access key ID. */
  readonly accessKeyId: DumpStoreSecretKey;
  /** Secret and key holding the secret access key. */
  readonly secretAccessKey: DumpStoreSecretKey;
  /**
   * Secret and key holding the region.
   * @default - none; the endpoint needs no region
   */
  readonly region?: DumpStoreSecretKey;
  /**
   * Secret and key holding the CA bundle that signed the endpoint's certificate.
   * @default - the system trust store of the rclone image
   */
  readonly endpointCa?: DumpStoreSecretKey;
}

/** The rclone remote the environment below defines; rclone reads `RCLONE_CONFIG_<NAME>_<OPTION>` (docs/content/docs.md, v1.75.0). */
const REMOTE = 'STORE';
/** Where the CA bundle is mounted, when there is one. */
export const DUMP_STORE_CA_PATH = '/etc/dump-store-ca/ca.crt';

/** Why `store` cannot be used (the construct path and prop are prefixed by the caller), or undefined. */
export function dumpStoreProblem(store: DumpStore): string | undefined {
  const credentials = urlCredentialProblem(store.endpointUrl);
  // The value is not repeated: it holds a credential.
  if (credentials !== undefined) return `'endpointUrl' ${credentials}; put the keys in the Secret that 'accessKeyId' and 'secretAccessKey' name.`;
  if (!/^https?:\/\/[^/\s?#@]+\/?$/.test(store.endpointUrl)) {
    return `'endpointUrl' must be an http(s) URL with a host and no path, such as 'https://s3.example.net', got '${store.endpointUrl}'.`;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(store.bucket)) return `'bucket' must be an S3 bucket name such as 'homelab-backups', got '${store.bucket}'.`;
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(store.folder) || store.folder.split('/').includes('..')) {
    return `'folder' must be a folder without leading or trailing '/', such as 'homelab/forgejo', got '${store.folder}'.`;
  }
  return undefined;
}

/** The remote path of the dump folder, as rclone names it: `STORE:<bucket>/<folder>`. */
export function dumpStoreRemote(store: DumpStore): string {
  return `${REMOTE}:${store.bucket}/${store.folder}`;
}

/**
 * The environment that makes rclone reach `store`: an S3 remote defined by environment variables only (no config file,
 * nothing on a command line), provider `Other` (path-style requests, any S3-compatible endpoint), `no_check_bucket`
 * so credentials limited to one bucket need no right to create it. The keys come from the Secret by reference;
 * `optional` lets a pod start while the Secret is missing (the restore, on a volume that needs none).
 *
 * @see https://github.com/rclone/rclone/blob/v1.75.0/docs/content/s3.md
 */
export function dumpStoreEnv(store: DumpStore, options: { optional?: boolean } = {}): k8s.EnvVar[] {
  const optional = options.optional === true ? { optional: true } : {};
  const fromSecret = (name: string, ref: DumpStoreSecretKey): k8s.EnvVar =>
    ({ name: `RCLONE_CONFIG_${REMOTE}_${name}`, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key, ...optional } } });
  return [
    { name: `RCLONE_CONFIG_${REMOTE}_TYPE`, value: 's3' },
    { name: `RCLONE_CONFIG_${REMOTE}_PROVIDER`, value: 'Other' },
    { name: `RCLONE_CONFIG_${REMOTE}_ENDPOINT`, value: store.endpointUrl },
    { name: `RCLONE_CONFIG_${REMOTE}_NO_CHECK_BUCKET`, value: 'true' },
    fromSecret('ACCESS_KEY_ID', store.accessKeyId),
    fromSecret('SECRET_ACCESS_KEY', store.secretAccessKey),
    ...(store.region ? [fromSecret('REGION', store.region)] : []),
    // rclone's global `--ca-cert` flag, as its environment variable.
    ...(store.endpointCa ? [{ name: 'RCLONE_CA_CERT', value: DUMP_STORE_CA_PATH }] : []),
    { name: 'REMOTE', value: dumpStoreRemote(store) },
    // The image's XDG_CONFIG_HOME has no config file; rclone says so once and uses the environment.
    { name: 'HOME', value: '/tmp' },
  ];
}

/** The Secrets `store` reads, sorted and without duplicates, for the runbook's preconditions. */
export function dumpStoreSecrets(store: DumpStore): string[] {
  return [...new Set([store.accessKeyId, store.secretAccessKey, store.region, store.endpointCa]
    .filter((r): r is DumpStoreSecretKey => r !== undefined).map((r) => r.name))].sort();
}

/** The keys of `secret` that `store` reads, sorted, for a precondition's hint. */
export function dumpStoreKeys(store: DumpStore, secret: string): string[] {
  return [store.accessKeyId, store.secretAccessKey, store.region, store.endpointCa]
    .filter((r): r is DumpStoreSecretKey => r !== undefined && r.name === secret).map((r) => r.key).sort();
}

/** A `secret-exists` precondition per Secret `store` reads, with a hint that creates it without a literal on a command line. */
export function dumpStorePreconditions(store: DumpStore, namespace: string, purpose: string): Precondition[] {
  return dumpStoreSecrets(store).map((name) => {
    const keys = dumpStoreKeys(store, name);
    const onlyCa = store.endpointCa?.name === name && keys.length === 1;
    const hint = onlyCa
      ? `Create Secret '${name}' in namespace '${namespace}' with key '${keys[0]}' (the CA bundle of ${store.endpointUrl}, for ${purpose}): ` +
        `kubectl create secret generic ${name} -n ${namespace} --from-file=${keys[0]}=<PEM file>.`
      : `Create Secret '${name}' in namespace '${namespace}' with keys ${keys.map((k) => `'${k}'`).join(', ')} ` +
        `(the S3 credentials of ${purpose}: ${store.endpointUrl}, bucket '${store.bucket}'), from a file that is never committed: ` +
        `kubectl create secret generic ${name} -n ${namespace} --from-env-file=<file of KEY=value lines>.`;
    return { kind: 'secret-exists' as const, namespace, name, hint };
  });
}

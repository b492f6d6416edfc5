/**
 * An S3-compatible object store and the Secret references of its credentials: the shape of every object store of the
 * config (the backups' in lib/config/schema.ts, the end-to-end artifacts' in lib/config/delivery/e2e.ts).
 */
import { z } from 'zod';
import { checkedString, secretKey, secretName } from './fields';
import { show } from './messages';

/** A key of a Secret in the namespace of the cluster that reads it. */
export const SecretKeyRefSchema = z.strictObject({
  /** Name of the Secret. */
  name: secretName,
  /** Key of the value in the Secret's data. */
  key: secretKey,
}).readonly();

/** A credential written into the config instead of referenced: always an error, with the fix. */
function credentialLiteral(what: string, keyField: string) {
  return z.never({
    error: () => `a literal ${what} is not allowed: the config is committed and rendered into dist/. Put it in the Secret named by ` +
      `'secretName' and name its key in '${keyField}'.`,
  }).optional();
}

/**
 * S3 credentials, by Secret reference only: the Secret (in the cluster's namespace) and the key of each value. The
 * default keys are the ones of the plugin's examples.
 */
export const S3CredentialsSchema = z.strictObject({
  /** Secret in the cluster's namespace that holds the credentials. */
  secretName,
  /** Key of the access key ID. @default 'ACCESS_KEY_ID' */
  accessKeyIdKey: secretKey.default('ACCESS_KEY_ID'),
  /** Key of the secret access key. @default 'ACCESS_SECRET_KEY' */
  secretAccessKeyKey: secretKey.default('ACCESS_SECRET_KEY'),
  /** Key of the region, for endpoints that need one. @default - none */
  regionKey: secretKey.optional(),
  /** Never set: credentials are Secret references. */
  accessKeyId: credentialLiteral('access key ID', 'accessKeyIdKey'),
  /** Never set: credentials are Secret references. */
  secretAccessKey: credentialLiteral('secret access key', 'secretAccessKeyKey'),
}).readonly();

/** An S3-compatible object store: any endpoint (in the cluster or off-site), a bucket and a folder in it. */
export const BackupObjectStoreSchema = z.strictObject({
  /** Endpoint of the S3-compatible service: scheme, host and port, no path, e.g. `https://s3.eu-central-1.amazonaws.com`. */
  endpointURL: checkedString((v) => (/^https?:\/\/[^/\s?#@]+\/?$/.test(v) ? undefined : `${show(v)} is not an S3 endpoint URL: write the ` +
    'scheme, host and port without a path, e.g. \'https://s3.example.net\' or \'http://192.168.1.20:9000\'.')),
  /** Bucket of the WAL archive and base backups. */
  bucket: checkedString((v) => (/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(v) && !v.includes('..') ? undefined
    : `${show(v)} is not an S3 bucket name: 3 to 63 lower-case letters, digits, '.' and '-', e.g. 'homelab-backups'.`)),
  /** Folder inside the bucket. @default - the bucket's root */
  path: checkedString((v) => (/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(v) && !v.split('/').includes('..') ? undefined
    : `${show(v)} is not a folder in a bucket: write it without a leading or trailing '/', e.g. 'cnpg'.`)).optional(),
  /** Credentials, by Secret reference only. */
  credentials: S3CredentialsSchema,
  /** Secret key holding the CA bundle of a self-signed endpoint. @default - the system trust store */
  caSecret: SecretKeyRefSchema.optional(),
}).readonly();

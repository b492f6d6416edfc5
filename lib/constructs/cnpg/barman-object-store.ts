import { Construct } from 'constructs';
import { ObjectStore, ObjectStoreSpecConfigurationWalCompression } from '../../../imports/barman-objectstore-barmancloud.cnpg.io';
import { retentionPolicyProblem } from '../../shared/backup';
import { urlCredentialProblem } from '../../shared/secrets';

/** A key of a Secret in the object store's namespace. */
export interface ObjectStoreSecretKey {
  /** Name of the Secret. */
  readonly name: string;
  /** Key of the value in the Secret's data. */
  readonly key: string;
}

/** Properties for `BarmanObjectStore`. */
export interface BarmanObjectStoreProps {
  /** Name of the `ObjectStore`; a Cluster names it in `barmanObjectName`. */
  readonly name: string;
  /** Namespace of the `ObjectStore`: the namespace of the Clusters that use it (the plugin looks it up there). */
  readonly namespace: string;
  /** Endpoint of the S3-compatible service, e.g. `https://s3.eu-central-1.amazonaws.com` (never with credentials). */
  readonly endpointUrl: string;
  /** Bucket that holds the WAL archive and base backups. */
  readonly bucket: string;
  /**
   * Folder inside the bucket, without leading or trailing '/'.
   * @default - the bucket's root
   */
  readonly bucketPath?: string;
  /** Secret and key holding the access key ID. */
  readonly accessKeyId: ObjectStoreSecretKey;
  /** Secret and key holding the secret access key. */
  readonly secretAccessKey: ObjectStoreSecretKey;
  /**
   * Secret and key holding the region.
   * @default - none; the endpoint needs no region
   */
  readonly region?: ObjectStoreSecretKey;
  /**
   * Secret and key holding the CA bundle that signed the endpoint's certificate.
   * @default - the system trust store
   */
  readonly endpointCa?: ObjectStoreSecretKey;
  /**
   * How long base backups and WAL files are kept (`30d`, `4w`, `6m`); the plugin deletes older ones.
   * @default - no retention: nothing is ever deleted (right for a store that is only restored from)
   */
  readonly retentionPolicy?: string;
}

/**
 * A Barman Cloud plugin `ObjectStore` (`barmancloud.cnpg.io/v1`): where a Cluster archives its WAL and base backups,
 * or where a restore reads them. Credentials are Secret references only. `serverName` is never set here: the plugin's
 * CRD forbids it (the Cluster's plugin parameter names the server instead).
 *
 * @see https://github.com/cloudnative-pg/plugin-barman-cloud/blob/v0.14.0/web/docs/usage.md
 */
export class BarmanObjectStore extends Construct {
  public readonly name: string;
  public readonly namespace: string;
  public readonly endpointUrl: string;
  /** `s3://<bucket>/<bucketPath>/`: the folder under which each server name has its own folder. */
  public readonly destinationPath: string;
  public readonly retentionPolicy?: string;
  /** The props it was defined with: a copy in another namespace reads the same store (the restore drill). */
  public readonly settings: BarmanObjectStoreProps;
  /** The `ObjectStore` object. */
  public readonly resource: ObjectStore;

  constructor(scope: Construct, id: string, props: BarmanObjectStoreProps) {
    super(scope, id);
    this.name = props.name;
    this.namespace = props.namespace;
    this.endpointUrl = props.endpointUrl;
    this.retentionPolicy = props.retentionPolicy;
    this.settings = props;
    const credentials = urlCredentialProblem(props.endpointUrl);
    if (credentials !== undefined) {
      throw new Error(`${this.node.path}: 'endpointUrl' ${credentials}; reference the credentials through 'accessKeyId' and 'secretAccessKey'.`);
    }
    if (!/^https?:\/\/[^/\s]+\/?$/.test(props.endpointUrl)) {
      throw new Error(`${this.node.path}: 'endpointUrl' must be an http(s) URL without a path, e.g. 'https://s3.example.net', got '${props.endpointUrl}'.`);
    }
    if (props.bucketPath !== undefined && (props.bucketPath === '' || props.bucketPath.startsWith('/') || props.bucketPath.endsWith('/'))) {
      throw new Error(`${this.node.path}: 'bucketPath' must not be empty or start or end with '/', got '${props.bucketPath}'.`);
    }
    const retention = props.retentionPolicy === undefined ? undefined : retentionPolicyProblem(props.retentionPolicy);
    if (retention !== undefined) throw new Error(`${this.node.path}: 'retentionPolicy' ${retention}`);
    this.destinationPath = `s3://${props.bucket}/${props.bucketPath === undefined ? '' : `${props.bucketPath}/`}`;

    this.resource = new ObjectStore(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace },
      spec: {
        configuration: {
          destinationPath: this.destinationPath,
          endpointUrl: this.endpointUrl,
          ...(props.endpointCa ? { endpointCa: { name: props.endpointCa.name, key: props.endpointCa.key } } : {}),
          s3Credentials: {
            accessKeyId: { name: props.accessKeyId.name, key: props.accessKeyId.key },
            secretAccessKey: { name: props.secretAccessKey.name, key: props.secretAccessKey.key },
            ...(props.region ? { region: { name: props.region.name, key: props.region.key } } : {}),
          },
          // WAL segments are 16 MiB of mostly compressible pages; gzip is what every plugin example uses.
          wal: { compression: ObjectStoreSpecConfigurationWalCompression.GZIP },
        },
        ...(this.retentionPolicy !== undefined ? { retentionPolicy: this.retentionPolicy } : {}),
      },
    });
  }
}

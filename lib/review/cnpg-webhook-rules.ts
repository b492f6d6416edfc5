import { compareQuantities, parseQuantity } from '../shared/quantity';
import { equal } from './object-diff';
import { isObject } from './review-objects';

/** A change of a CNPG `Cluster` its admission webhook refuses. */
export interface CnpgRefusal {
  /** The field the webhook names, e.g. `spec.storage`. */
  readonly field: string;
  /** The webhook's message, as it words it (with the values of this change). */
  readonly message: string;
  /** The function of CNPG v1.30.0 `internal/webhook/v1/cluster_webhook.go` that refuses it. */
  readonly source: string;
  /** A smaller volume: the webhook refuses it, and getting there would mean a new volume, without the data. */
  readonly shrinks?: boolean;
}

const WEBHOOK = 'cloudnative-pg v1.30.0 internal/webhook/v1/cluster_webhook.go';

/**
 * The update rules of CNPG's Cluster webhook (`ClusterCustomValidator.validateClusterChanges`) that can be judged
 * from the two manifests, read from its source at v1.30.0:
 *
 * - `validateStorageChange`, `validateWalStorageChange`, `validateTablespacesChange` through
 *   `validateStorageConfigurationChange`: "can't shrink existing storage from X to Y"; "walStorage cannot be
 *   disabled once configured"; "tablespaces section cannot be deleted once created", "no tablespace can be deleted
 *   once created";
 * - `validateImageChange`: "can't downgrade from major X to Y", and "major upgrades are only supported to version 16
 *   or higher". The webhook compares with `status.pgDataImageInfo.majorVersion`, the version the data directory
 *   runs; the base manifest's image stands in for it (the version the cluster was rolled out with);
 * - `validateConfigurationChange`: with `primaryUpdateMethod: switchover`, the image and `postgresql.parameters`
 *   may not change together;
 * - `validateUnixPermissionIdentifierChange`: "GID is an immutable field in the spec", "UID is ..." (both default
 *   to 26 in the defaulting webhook);
 * - `validateReplicationSlotsChange`: with high-availability slots enabled (the default), the
 *   `replicationSlots.highAvailability` section may not be removed nor its `slotPrefix` changed;
 * - `validateWALLevelChange`: `wal_level` may not become `minimal` on an existing cluster.
 *
 * `validateReplicaClusterChange` depends on the live status (a switchover in progress) and is not judged here.
 * `test/cluster/upgrade.test.ts` shows the storage-shrink refusal from the real webhook.
 */
export function cnpgClusterRefusals(old: any, next: any): CnpgRefusal[] {
  const found: CnpgRefusal[] = [];
  const o = old?.spec ?? {};
  const n = next?.spec ?? {};
  const shrink = (field: string, a: unknown, b: unknown, source: string) => {
    const qa = size(a);
    const qb = size(b);
    if (qa && qb && compareQuantities(qa, qb) > 0) {
      found.push({ field, message: `can't shrink existing storage from ${qa.text} to ${qb.text}`, source, shrinks: true });
    }
  };
  shrink('spec.storage', o.storage?.size, n.storage?.size, 'validateStorageChange');
  if (isObject(o.walStorage)) {
    if (!isObject(n.walStorage)) found.push({ field: 'spec.walStorage', message: 'walStorage cannot be disabled once configured', source: 'validateWalStorageChange' });
    else shrink('spec.walStorage', o.walStorage.size, n.walStorage.size, 'validateWalStorageChange');
  }
  if (Array.isArray(o.tablespaces)) {
    if (!Array.isArray(n.tablespaces)) {
      found.push({ field: 'spec.tablespaces', message: 'tablespaces section cannot be deleted once created', source: 'validateTablespacesChange' });
    } else {
      o.tablespaces.forEach((t: any, i: number) => {
        const now = n.tablespaces.find((x: any) => x?.name === t?.name);
        if (now === undefined) found.push({ field: `spec.tablespaces[${i}]`, message: 'no tablespace can be deleted once created', source: 'validateTablespacesChange' });
        else shrink(`spec.tablespaces[${i}]`, t.storage?.size, now.storage?.size, 'validateTablespacesChange');
      });
    }
  }
  const [from, to] = [majorVersion(o), majorVersion(n)];
  const imageField = isObject(n.imageCatalogRef) ? 'spec.imageCatalogRef.major' : 'spec.imageName';
  if (from !== undefined && to !== undefined) {
    if (from > to) found.push({ field: imageField, message: `can't downgrade from major ${from} to ${to}`, source: 'validateImageChange' });
    if (from < to && to < 16) found.push({ field: imageField, message: 'major upgrades are only supported to version 16 or higher', source: 'validateImageChange' });
  }
  if (o.imageName !== n.imageName && n.primaryUpdateMethod === 'switchover' && !equal(o.postgresql?.parameters ?? {}, n.postgresql?.parameters ?? {})) {
    found.push({ field: 'spec.imageName', source: 'validateConfigurationChange',
      message: "Can't change image name and configuration at the same time when `primaryUpdateMethod` is set to `switchover`" });
  }
  for (const [key, label] of [['postgresGID', 'GID'], ['postgresUID', 'UID']] as const) {
    if ((o[key] ?? 26) !== (n[key] ?? 26)) {
      found.push({ field: `spec.${key}`, message: `${label} is an immutable field in the spec`, source: 'validateUnixPermissionIdentifierChange' });
    }
  }
  const ha = o.replicationSlots?.highAvailability;
  if (isObject(o.replicationSlots) && (ha === undefined || ha.enabled !== false)) {
    const nowHa = n.replicationSlots?.highAvailability;
    if (!isObject(nowHa)) {
      found.push({ field: 'spec.replicationSlots', message: 'Cannot remove the highAvailability section while highAvailability is enabled', source: 'validateReplicationSlotsChange' });
    } else if ((ha?.slotPrefix ?? '_cnpg_') !== (nowHa.slotPrefix ?? '_cnpg_')) {
      found.push({ field: 'spec.replicationSlots.highAvailability.slotPrefix', message: 'Cannot change replication slot prefix while highAvailability is enabled',
        source: 'validateReplicationSlotsChange' });
    }
  }
  const [walFrom, walTo] = [o.postgresql?.parameters?.wal_level, n.postgresql?.parameters?.wal_level];
  if (walTo === 'minimal' && typeof walFrom === 'string' && walFrom !== '' && walFrom !== walTo) {
    found.push({ field: 'spec.postgresql.parameters.wal_level', message: `Change of \`wal_level\` to \`minimal\` not allowed on an existing cluster (from ${walFrom})`,
      source: 'validateWALLevelChange' });
  }
  return found.map((f) => ({ ...f, source: `${WEBHOOK} ${f.source}` }));
}

function size(v: unknown) {
  return typeof v === 'string' || typeof v === 'number' ? parseQuantity(v) : undefined;
}

/** The PostgreSQL major version of a Cluster spec: `imageCatalogRef.major`, else the leading number of the image tag. */
export function majorVersion(spec: any): number | undefined {
  if (isObject(spec.imageCatalogRef) && typeof spec.imageCatalogRef.major === 'number') return spec.imageCatalogRef.major;
  if (typeof spec.imageName !== 'string') return undefined;
  const tag = /:([0-9]+)(?:[.-][^/]*)?(?:@.*)?$/.exec(spec.imageName.split('@')[0]);
  return tag ? Number(tag[1]) : undefined;
}

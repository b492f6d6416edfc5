import { ArgoCdChart } from './argocd-chart';
import { BootstrapPlan } from './bootstrap-plan';
import { prometheusStack } from './backup-checks';
import { CNPG_INSTANCE_PORTS } from '../constructs/cnpg/cnpg-cluster';
import { KUBERNETES_API, NetworkFlow, NetworkPort, outsideCluster, podPeer, urlHost, urlPort } from '../shared/network';
import { ResolvedHomelabConfig } from '../config/homelab-config';
import { ConfigError, ConfigProblem } from '../shared/errors';
import { kyvernoRegistryFlows } from './delivery/kyverno';

/**
 * The flows into and out of the Phase-0 namespaces that the Argo CD tree's constructs imply, added to the bootstrap's
 * network isolation (a no-op when `network.isolatePhase0` is off):
 *
 * - the Forgejo mirror Job (Argo CD delivers it into Forgejo's namespace): to Forgejo's API, and Forgejo to GitHub;
 * - Argo CD's repo-server to every Helm chart repository an Application installs from;
 * - Prometheus (kube-prometheus-stack's, the one the backup alerts' PodMonitors are for) to the metrics port of every
 *   Phase-0 cluster it scrapes;
 * - the Clusters Argo CD delivers into an isolated namespace: their own flows, and the CNPG operator managing them.
 * - Kyverno's admission controller to Forgejo's registry, whose image signatures it verifies.
 *
 * Every allow policy of an isolated namespace is written by Phase 0 (the mirror Job's with Forgejo), so a namespace is
 * never default-deny without the allows of what runs in it.
 */
export function addArgoCdTreeFlows(bootstrap: BootstrapPlan, argocd: ArgoCdChart, config: ResolvedHomelabConfig): void {
  const network = bootstrap.network;
  if (!network) return;

  const mirror = argocd.forgejoMirrorJob;
  if (network.isIsolated(mirror.namespace)) network.place(mirror.peer, bootstrap.forgejoStep);
  network.addWorkload(mirror);

  for (const [host, { port, apps }] of chartRepositories(argocd)) {
    network.addFlow({
      from: bootstrap.argocd.repoServerPeer, to: outsideCluster(`${host} (Helm charts)`), ports: [port],
      reason: `HomelabApplication.sources: ${[...apps].sort().join(', ')}`,
    });
  }

  // The delivery parts' own pods (Argo CD Image Updater in `argocd`, which is default-deny): their derived flows. A
  // workload in Argo CD's namespace gets its allow policy with Argo CD's install step, beside Argo CD's own.
  const placed = new Set<string>();
  for (const flow of argocd.delivery.flatMap((part) => part.networkFlows ?? [])) {
    const from = flow.from;
    if (from.kind === 'pods' && from.namespace === bootstrap.argocd.namespace && network.isIsolated(from.namespace) && !placed.has(from.name)) {
      network.place(from, bootstrap.argocdInstall);
      placed.add(from.name);
    }
    network.addFlow(flow);
  }

  const stack = prometheusStack([...argocd.applications.values()]);
  for (const alerts of argocd.backupChecks?.alerts ?? []) {
    if (!stack || !network.isIsolated(alerts.cluster.namespace)) continue;
    network.addFlow({
      // The Prometheus Operator labels Prometheus' pods `app.kubernetes.io/name: prometheus` (prometheus-operator v0.93.1
      // pkg/prometheus/server/statefulset.go), in the namespace of the Application that installs the stack.
      from: { kind: 'selected-pods', name: `${stack.app.namespace}/prometheus`, namespace: stack.app.namespace, podSelector: { 'app.kubernetes.io/name': 'prometheus' } },
      to: alerts.cluster.peer,
      ports: [CNPG_INSTANCE_PORTS.metrics],
      reason: `CnpgBackupAlerts: PodMonitor ${alerts.namespace}/${alerts.podMonitor.name} scrapes cluster ${alerts.cluster.name}`,
    });
  }

  for (const cluster of argocd.dataSchemas?.clusters ?? []) {
    if (!network.isIsolated(cluster.namespace)) continue;
    network.addWorkload(cluster);
    network.addFlow(bootstrap.operator.manages(cluster));
  }

  // Kyverno fetches image signatures from Forgejo's registry.
  for (const flow of kyvernoRegistryFlows(argocd.delivery, bootstrap.forgejo)) network.addFlow(flow);
  // The delivery parts' workloads (the build runner's pods calling Forgejo), as the catalog's `network.egressTo` did.
  for (const workload of argocd.delivery.flatMap((part) => part.networkWorkloads ?? [])) network.addWorkload(workload);

  addDatabaseClientFlows(bootstrap, argocd, config);
  addApplicationFlows(bootstrap, config);
}

/**
 * The clients of databases on a cluster in a default-deny namespace: Temporal through its construct's database
 * references, any other Application through `databases.<name>.usedBy`. Any pod of the client's namespace may connect:
 * charts label their pods as they please, and the namespace is the Application's.
 */
function addDatabaseClientFlows(bootstrap: BootstrapPlan, argocd: ArgoCdChart, config: ResolvedHomelabConfig): void {
  const network = bootstrap.network!;
  const problems: ConfigProblem[] = [];
  const temporal = argocd.temporal;
  if (temporal) {
    const databases = [temporal.defaultDatabase, temporal.visibilityDatabase];
    for (const cluster of new Set(databases.map((db) => db.cluster))) {
      if (!network.isIsolated(cluster.namespace)) continue;
      const names = databases.filter((db) => db.cluster === cluster).map((db) => db.pgName);
      network.addFlow({
        from: { kind: 'selected-pods', name: `${temporal.namespace}/* (Temporal)`, namespace: temporal.namespace }, to: cluster.peer,
        ports: [cluster.postgresPort], reason: `TemporalApplication: databases ${names.join(', ')} on cluster ${cluster.name}`,
      });
    }
  }
  const clusters = new Map([...bootstrap.clusters, ...(argocd.dataSchemas?.clusters ?? []).map((c) => [c.name, c] as const)]);
  for (const pgName of Object.keys(config.databases).sort()) {
    const db = config.databases[pgName];
    const cluster = clusters.get(db.cluster);
    db.usedBy.forEach((appName, i) => {
      const app = argocd.applications.get(appName);
      if (!app) {
        problems.push({
          path: `databases.${pgName}.usedBy.${i}`,
          message: `'${appName}' is not an Application of the tree; use one of: ${[...argocd.applications.keys()].sort().join(', ')}.`,
        });
        return;
      }
      if (!cluster || !network.isIsolated(cluster.namespace)) return;
      network.addFlow({
        from: { kind: 'selected-pods', name: `${app.namespace}/* (${appName})`, namespace: app.namespace }, to: cluster.peer,
        ports: [cluster.postgresPort], reason: `databases.${pgName}.usedBy: ${appName}`,
      });
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/**
 * The `network` of each Application: its namespace made default-deny when it opts in (`isolate`), its pods talking to
 * each other there, and the connections of `egressTo`. A Phase-0 namespace needs `podSelector`: every pod there would
 * include Forgejo's or Argo CD's.
 */
function addApplicationFlows(bootstrap: BootstrapPlan, config: ResolvedHomelabConfig): void {
  const network = bootstrap.network!;
  const problems: ConfigProblem[] = [];
  const apps = config.argocd.applications;
  const phase0Namespaces = new Set(network.isolatedNamespaces);
  for (const name of Object.keys(apps).sort()) {
    const app = apps[name];
    const access = app.network;
    if (!access) continue;
    const path = `argocd.applications.${name}.network`;
    const phase0 = phase0Namespaces.has(app.namespace);
    if (phase0 && access.isolate) {
      problems.push({
        path: `${path}.isolate`,
        message: `namespace '${app.namespace}' holds Phase-0 workloads and is default-deny already; isolate would let every pod ` +
          'there talk to every other. Remove isolate and set podSelector and egressTo.',
      });
      continue;
    }
    if (phase0 && access.podSelector === undefined) {
      problems.push({
        path: `${path}.podSelector`,
        message: `namespace '${app.namespace}' holds Phase-0 workloads, so an allow for every pod there would open them too; ` +
          'set podSelector to the labels of this Application\'s pods.',
      });
      continue;
    }
    if (access.isolate) network.isolateNamespace(app.namespace);
    const peer = podPeer(app.namespace, name, access.podSelector ?? {});
    const flows: NetworkFlow[] = [];
    if (access.isolate) {
      const everyPod = podPeer(app.namespace, `${name}-namespace`, {});
      flows.push({ from: everyPod, to: everyPod, ports: [], allPorts: true, reason: `${path}.isolate: the pods of namespace ${app.namespace} talk to each other` });
    }
    for (const target of access.egressTo) {
      const reason = `${path}.egressTo: ${target}`;
      if (target === 'kubernetes-api') flows.push({ from: peer, to: KUBERNETES_API, ports: [], reason });
      if (target === 'forgejo') flows.push({ from: peer, to: bootstrap.forgejo.peer, ports: [{ port: bootstrap.forgejo.httpPort, name: 'http' }], reason });
      if (target === 'outside-cluster') flows.push({ from: peer, to: outsideCluster('HTTPS'), ports: [{ port: 443, name: 'https' }], reason });
    }
    for (const flow of flows) network.addFlow(flow);
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Every Helm repository host an Application installs a chart from, with its port and those Applications, sorted by host. */
function chartRepositories(argocd: ArgoCdChart): [string, { port: NetworkPort; apps: Set<string> }][] {
  const hosts = new Map<string, { port: NetworkPort; apps: Set<string> }>();
  for (const app of argocd.applications.values()) {
    for (const source of app.sources) {
      if (source.kind !== 'helm-chart') continue;
      // An OCI registry is HTTPS (`oci://` only tells Helm to use the OCI protocol).
      const url = source.repoURL.replace(/^oci:\/\//, 'https://');
      const host = urlHost(url);
      const entry = hosts.get(host) ?? { port: urlPort(url), apps: new Set<string>() };
      entry.apps.add(app.name);
      hosts.set(host, entry);
    }
  }
  return [...hosts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}


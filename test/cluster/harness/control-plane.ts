// A throwaway Kubernetes control plane on 127.0.0.1 for `npm run test:cluster`: Debian's etcd, and
// kube-apiserver, kube-controller-manager and kubectl v1.30 built from the k8s.io/kubernetes Go module by
// scripts/build-control-plane.js. Certificates, keys and the kubeconfig are generated into a temporary folder;
// every process is stopped by PID and the folder removed by stop().
//
// kube-controller-manager runs only controllers that never write the status the StatusWriter writes:
// namespace (deletes a namespace's content), serviceaccount (the `default` ServiceAccount Pods need),
// root-ca-cert-publisher (kube-root-ca.crt) and garbagecollector (ownerReferences). No Deployment, ReplicaSet,
// StatefulSet, DaemonSet or Job controller runs: the StatusWriter plays them, and nothing fights it.
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { EgressProxy } from './egress-proxy';
import { KubeClient } from './kube-client';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CONTROLLERS = ['namespace', 'serviceaccount', 'root-ca-cert-publisher', 'garbagecollector'];
/** The Service network kube-apiserver allocates ClusterIPs from; `kubernetes.default` gets its first address. */
const SERVICE_CIDR = '10.96.0.0/16';

/** Paths of the binaries scripts/build-control-plane.js built (or found, for etcd). */
export interface ControlPlaneBinaries {
  readonly version: string;
  readonly 'kube-apiserver': string;
  readonly 'kube-controller-manager': string;
  readonly kubectl: string;
  readonly etcd: string;
}

/** Builds the binaries when the cache misses (about 6 minutes cold), then returns their paths. */
export function controlPlaneBinaries(): ControlPlaneBinaries {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-control-plane.js')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`scripts/build-control-plane.js failed (exit ${r.status}); see its output above`);
  return JSON.parse(r.stdout) as ControlPlaneBinaries;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function openssl(dir: string, ...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.error?.message ?? r.stderr}`);
}

/** A key pair and certificate signed by the test CA (`ca.crt`/`ca.key` in `dir`). */
export function issueCertificate(dir: string, name: string, subject: string, altNames: readonly string[] = []): { cert: string; key: string } {
  openssl(dir, 'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
  const ext = [`extendedKeyUsage=${altNames.length > 0 ? 'serverAuth' : 'clientAuth'}`];
  if (altNames.length > 0) ext.push(`subjectAltName=${altNames.join(',')}`);
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext.join('\n') + '\n');
  openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
  return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) };
}

function kubeconfig(server: string, ca: string, user: { cert: string; key: string } | { token: string }): string {
  const credentials = 'token' in user
    ? { token: user.token }
    : { 'client-certificate': user.cert, 'client-key': user.key };
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server, 'certificate-authority': ca } }],
    users: [{ name: 'user', user: credentials }],
    contexts: [{ name: 'homelab-test', context: { cluster: 'test', user: 'user' } }],
    'current-context': 'homelab-test',
  }, null, 2);
}

export interface KubectlResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Managed {
  readonly name: string;
  readonly child: ChildProcess;
  exited: boolean;
}

export interface StartOptions {
  /** Where each process's log goes; the temporary folder by default. */
  readonly logDir?: string;
}

/** A running control plane; call stop() in afterAll. */
export class ControlPlane {
  /** Starts etcd, kube-apiserver and kube-controller-manager and waits until the API server is ready. */
  static async start(options: StartOptions = {}): Promise<ControlPlane> {
    const binaries = controlPlaneBinaries();
    // The run id (jest.cluster.config.js) lets the global teardown find this run's processes by their arguments.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `homelab-cp-${process.env.HOMELAB_CLUSTER_RUN ?? 'adhoc'}-`));
    const plane = new ControlPlane(binaries, dir, options.logDir ?? dir);
    try {
      await plane.boot();
    } catch (e) {
      await plane.stop();
      throw e;
    }
    return plane;
  }

  /** The admin kubeconfig (group system:masters). */
  readonly kubeconfig: string;
  readonly caFile: string;
  readonly egress: EgressProxy;
  private server = '';
  private readonly processes: Managed[] = [];
  private client: KubeClient | undefined;
  private readonly onExit = (): void => this.killAll('SIGKILL');

  private constructor(readonly binaries: ControlPlaneBinaries, readonly dir: string, private readonly logDir: string) {
    this.kubeconfig = path.join(dir, 'admin.kubeconfig');
    this.caFile = path.join(dir, 'ca.crt');
    this.egress = new EgressProxy(path.join(dir, 'egress.sock'));
    process.on('exit', this.onExit);
  }

  /** The API server's URL, https://127.0.0.1:<port>. */
  get url(): string {
    return this.server;
  }

  get kube(): KubeClient {
    if (this.client === undefined) throw new Error('control plane not started');
    return this.client;
  }

  /** Env for a child process whose kubectl must talk to this control plane and nothing else. */
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return { ...process.env, KUBECONFIG: this.kubeconfig, HOME: this.dir, ...extra };
  }

  /**
   * Runs the matching kubectl against this control plane. Asynchronous on purpose: the egress proxy, the CNPG
   * webhook route and the StatusWriter live in this process, and a synchronous child would starve them while
   * the API server waits on them.
   */
  kubectl(args: readonly string[], input?: string): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binaries.kubectl, ['--kubeconfig', this.kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      child.once('error', reject);
      child.once('close', (status) => resolve({ status: status ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
      child.stdin.end(input ?? '');
    });
  }

  /**
   * Waits until every CRD is Established. kubectl 1.30's `wait --for=condition=...` fails at once, instead of
   * waiting, on a CRD whose status has no conditions yet (".status.conditions accessor error"), as a CRD is for a
   * moment after it is created; that case is retried (the runbook's wait_crds does the same).
   */
  async waitCrdsEstablished(timeoutSeconds = 120): Promise<KubectlResult> {
    const deadline = Date.now() + timeoutSeconds * 1000;
    for (;;) {
      const r = await this.kubectl(['wait', '--for=condition=Established', `--timeout=${timeoutSeconds}s`, 'crd', '--all']);
      if (r.status === 0 || !r.stderr.includes('accessor error') || Date.now() > deadline) return r;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** A kubeconfig that authenticates as a ServiceAccount, with a token from the TokenRequest API. */
  async serviceAccountKubeconfig(namespace: string, name: string): Promise<string> {
    const request = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } };
    const response = await this.kube.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, request);
    const file = path.join(this.dir, `sa-${namespace}-${name}.kubeconfig`);
    fs.writeFileSync(file, kubeconfig(this.server, this.caFile, { token: response.status.token }), { mode: 0o600 });
    return file;
  }

  private async boot(): Promise<void> {
    const dir = this.dir;
    openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=homelab-test-ca');
    const serving = issueCertificate(dir, 'apiserver', '/CN=kube-apiserver',
      ['IP:127.0.0.1', 'IP:10.96.0.1', 'DNS:localhost', 'DNS:kubernetes', 'DNS:kubernetes.default', 'DNS:kubernetes.default.svc']);
    const admin = issueCertificate(dir, 'admin', '/O=system:masters/CN=homelab-test-admin');
    const manager = issueCertificate(dir, 'controller-manager', '/CN=system:kube-controller-manager');
    openssl(dir, 'genrsa', '-out', 'sa.key', '2048');
    openssl(dir, 'rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub');

    const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
    this.server = `https://127.0.0.1:${apiPort}`;
    fs.writeFileSync(this.kubeconfig, kubeconfig(this.server, this.caFile, admin), { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'controller-manager.kubeconfig'), kubeconfig(this.server, this.caFile, manager), { mode: 0o600 });
    // Webhook calls to Services leave the API server through this proxy (the "cluster" egress), so a webhook
    // served on the host is reached without routing the Service network (test/cluster/harness/egress-proxy.ts).
    fs.writeFileSync(path.join(dir, 'egress.yaml'), JSON.stringify({
      apiVersion: 'apiserver.k8s.io/v1beta1',
      kind: 'EgressSelectorConfiguration',
      egressSelections: [{ name: 'cluster', connection: { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: this.egress.socket } } } }],
    }));
    await this.egress.listen();

    this.launch('etcd', this.binaries.etcd, [
      '--name=homelab-test', `--data-dir=${path.join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`, `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`, `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=homelab-test=http://127.0.0.1:${etcdPeer}`, '--unsafe-no-fsync',
    ]);
    this.launch('kube-apiserver', this.binaries['kube-apiserver'], [
      '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', `--secure-port=${apiPort}`,
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      `--client-ca-file=${this.caFile}`, `--tls-cert-file=${serving.cert}`, `--tls-private-key-file=${serving.key}`,
      '--service-account-issuer=https://kubernetes.default.svc', `--service-account-key-file=${path.join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${path.join(dir, 'sa.key')}`, `--service-cluster-ip-range=${SERVICE_CIDR}`,
      // RBAC, so a wait Job's own command runs with its ServiceAccount's permissions and nothing more. The
      // default admission plugins of 1.30 stay on, PodSecurity among them.
      '--authorization-mode=RBAC', `--egress-selector-config-file=${path.join(dir, 'egress.yaml')}`,
      `--cert-dir=${path.join(dir, 'certs')}`, '--profiling=false',
    ]);
    this.client = new KubeClient(this.server, { ca: this.caFile, ...admin });
    this.egress.resolver = async (ip) => {
      const service = (await this.kube.list('/api/v1/services')).find((s) => s.spec.clusterIP === ip);
      return service === undefined ? undefined : `${service.metadata.name}.${service.metadata.namespace}.svc`;
    };
    await this.waitReady();
    this.launch('kube-controller-manager', this.binaries['kube-controller-manager'], [
      `--kubeconfig=${path.join(dir, 'controller-manager.kubeconfig')}`, '--bind-address=127.0.0.1', '--secure-port=0',
      `--controllers=${CONTROLLERS.join(',')}`, '--leader-elect=false', `--root-ca-file=${this.caFile}`,
      `--service-account-private-key-file=${path.join(dir, 'sa.key')}`, '--use-service-account-credentials=false',
    ]);
    await this.waitFor('the default ServiceAccount (kube-controller-manager running)', async () =>
      (await this.kube.get('/api/v1/namespaces/default/serviceaccounts/default')) !== undefined);
  }

  private launch(name: string, command: string, args: string[]): void {
    const log = fs.openSync(path.join(this.logDir, `${name}.log`), 'a');
    const child = spawn(command, args, { stdio: ['ignore', log, log], detached: false });
    fs.closeSync(log);
    const managed: Managed = { name, child, exited: false };
    child.once('exit', () => { managed.exited = true; });
    this.processes.push(managed);
  }

  private async waitReady(): Promise<void> {
    await this.waitFor('kube-apiserver /readyz', async () => {
      try {
        return (await this.kube.raw('GET', '/readyz')).status === 200;
      } catch {
        return false;
      }
    });
  }

  private async waitFor(what: string, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const dead = this.processes.find((p) => p.exited);
      if (dead !== undefined) throw new Error(`${dead.name} exited while waiting for ${what}:\n${this.log(dead.name).split('\n').slice(-20).join('\n')}`);
      if (await ready()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    const tails = this.processes.map((p) => `--- ${p.name}\n${this.log(p.name).split('\n').slice(-10).join('\n')}`);
    throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}\n${tails.join('\n')}`);
  }

  /** The log of one process, for failure messages. */
  log(name: string): string {
    const file = path.join(this.logDir, `${name}.log`);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  }

  /** PIDs of the processes still running (a test asserts none are left after stop). */
  get pids(): number[] {
    return this.processes.filter((p) => !p.exited && p.child.pid !== undefined).map((p) => p.child.pid!);
  }

  private killAll(signal: NodeJS.Signals): void {
    for (const p of [...this.processes].reverse()) if (!p.exited) p.child.kill(signal);
  }

  /** Stops every process by PID (TERM, then KILL after 5 s), closes the proxy, removes the folder. */
  async stop(): Promise<void> {
    this.killAll('SIGTERM');
    const deadline = Date.now() + 5_000;
    while (this.processes.some((p) => !p.exited) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    this.killAll('SIGKILL');
    while (this.processes.some((p) => !p.exited)) await new Promise((r) => setTimeout(r, 50));
    await this.egress.close();
    this.client?.close();
    process.removeListener('exit', this.onExit);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

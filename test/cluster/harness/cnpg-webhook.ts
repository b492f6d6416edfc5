// CloudNativePG's own admission webhooks (v1.30.0, internal/webhook/v1: defaulting and validation of Cluster,
// Database, Backup, ScheduledBackup, Pooler), served on the host by tools/cnpg-webhook, so the API server
// judges our Clusters with CNPG's real rules (storage shrink, image and major-version changes, ...). Only the
// webhooks run: CNPG's controllers would reconcile Clusters and fight the StatusWriter.
//
// What the operator does at start-up for its webhooks, the harness does here: a serving certificate for the
// webhook Service, and its CA injected into the caBundle of the release manifest's two webhook configurations
// (cloudnative-pg pkg/certs: the operator patches `cnpg-mutating-webhook-configuration` and
// `cnpg-validating-webhook-configuration`). The API server reaches the Service through the egress proxy.
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ControlPlane, freePort, issueCertificate } from './control-plane';
import { ROOT } from './output-tree';

const SERVICE = 'cnpg-webhook-service.cnpg-system.svc';
const CONFIGURATIONS = [
  '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/cnpg-mutating-webhook-configuration',
  '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/cnpg-validating-webhook-configuration',
];

/** The webhook binary, built by scripts/build-cnpg-webhook.js when its cache misses. */
export function cnpgWebhookBinary(): string {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-cnpg-webhook.js')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`scripts/build-cnpg-webhook.js failed (exit ${r.status}); see its output above`);
  return r.stdout.trim();
}

export class CnpgWebhook {
  private child: ChildProcess | undefined;
  private output = '';

  constructor(private readonly plane: ControlPlane) {}

  /** Starts the webhook server and routes the webhook Service to it. */
  async start(): Promise<void> {
    const dir = path.join(this.plane.dir, 'cnpg-webhook');
    fs.mkdirSync(dir, { recursive: true });
    const cert = issueCertificate(this.plane.dir, 'cnpg-webhook', `/CN=${SERVICE}`, [`DNS:${SERVICE}`, 'DNS:cnpg-webhook-service.cnpg-system']);
    fs.copyFileSync(cert.cert, path.join(dir, 'tls.crt'));
    fs.copyFileSync(cert.key, path.join(dir, 'tls.key'));
    const child = spawn(cnpgWebhookBinary(), ['--kubeconfig', this.plane.kubeconfig, '--listen', `127.0.0.1:${await freePort()}`, '--cert-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stderr!.on('data', (c: Buffer) => { this.output += c.toString(); });
    const address = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout!.on('data', (c: Buffer) => {
        stdout += c.toString();
        const match = /^ready (\S+)$/m.exec(stdout);
        if (match !== null) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`cnpg-webhook exited (${code}) before it was ready:\n${this.output}`)));
    });
    const port = Number(address.split(':').pop());
    this.plane.egress.route(`${SERVICE}:443`, port);
  }

  /**
   * Injects the CA into both webhook configurations where a webhook lacks it, as the operator does at start-up
   * and whenever the release manifest is applied again; a no-op when every webhook has it.
   */
  async injectCaBundle(): Promise<void> {
    const caBundle = fs.readFileSync(this.plane.caFile).toString('base64');
    for (const configuration of CONFIGURATIONS) {
      const current = await this.plane.kube.get(configuration);
      if (current === undefined) continue;
      const patch = (current.webhooks as any[])
        .map((w, i) => ({ w, i }))
        .filter(({ w }) => w.clientConfig.caBundle !== caBundle)
        .map(({ i }) => ({ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: caBundle }));
      if (patch.length > 0) await this.plane.kube.request('PATCH', configuration, patch, 'application/json-patch+json');
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  }

  /** PID of the webhook server while it runs. */
  get pid(): number | undefined {
    return this.child !== undefined && this.child.exitCode === null ? this.child.pid : undefined;
  }
}

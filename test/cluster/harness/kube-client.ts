// The smallest JSON client for the test API server: the StatusWriter polls and patches status many times a
// second, which through a kubectl process each would cost a process start per call. Everything a test asserts
// about applying output goes through the real kubectl instead.
import * as fs from 'fs';
import * as https from 'https';

export interface ClientCredentials {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export class KubeApiError extends Error {
  constructor(readonly method: string, readonly path: string, readonly status: number, readonly body: string) {
    super(`${method} ${path}: HTTP ${status}: ${body.slice(0, 500)}`);
  }
}

export class KubeClient {
  private readonly agent: https.Agent;
  private readonly base: URL;

  constructor(server: string, credentials: ClientCredentials) {
    this.base = new URL(server);
    this.agent = new https.Agent({
      keepAlive: true,
      ca: fs.readFileSync(credentials.ca),
      cert: fs.readFileSync(credentials.cert),
      key: fs.readFileSync(credentials.key),
    });
  }

  raw(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request({
        host: this.base.hostname, port: this.base.port, method, path, agent: this.agent,
        headers: { accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** The JSON answer of a request; an HTTP error status throws KubeApiError. */
  async request(method: string, path: string, body?: unknown, contentType?: string): Promise<any> {
    const res = await this.raw(method, path, body, contentType);
    if (res.status >= 400) throw new KubeApiError(method, path, res.status, res.body);
    return res.body === '' ? undefined : JSON.parse(res.body);
  }

  /** The object at `path`, or undefined when it does not exist (404). */
  async get(path: string): Promise<any> {
    const res = await this.raw('GET', path);
    if (res.status === 404) return undefined;
    if (res.status >= 400) throw new KubeApiError('GET', path, res.status, res.body);
    return JSON.parse(res.body);
  }

  /** Items of a list across all namespaces; an API that is not served (yet) lists nothing. */
  async list(path: string): Promise<any[]> {
    const res = await this.raw('GET', path);
    if (res.status === 404) return [];
    if (res.status >= 400) throw new KubeApiError('GET', path, res.status, res.body);
    return JSON.parse(res.body).items ?? [];
  }

  /** A JSON merge patch of the status subresource, as a controller writes it. */
  patchStatus(objectPath: string, status: unknown): Promise<any> {
    return this.request('PATCH', `${objectPath}/status`, { status }, 'application/merge-patch+json');
  }

  close(): void {
    this.agent.destroy();
  }
}

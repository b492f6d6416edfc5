// kube-apiserver's "cluster" egress (--egress-selector-config-file, HTTPConnect over a Unix socket; the
// protocol of k8s.io/apiserver/pkg/server/egressselector/egress_selector.go, tunnelHTTPConnect): every
// connection the API server opens to a Service — an admission webhook, here — arrives as
// `CONNECT <host>:<port>`. A route sends it to a server on the host; anything unrouted is refused and
// remembered, so a test can show which in-cluster endpoint the API server wanted.
import * as fs from 'fs';
import * as net from 'net';

/** The Service DNS name (`name.namespace.svc`) that holds a ClusterIP, or undefined. */
export type ClusterIpResolver = (ip: string) => Promise<string | undefined>;

export class EgressProxy {
  private readonly routes = new Map<string, number>();
  /** kube-apiserver dials a Service's ClusterIP (its default service resolver), so routes by name need this. */
  resolver: ClusterIpResolver | undefined;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** CONNECT targets nothing was routed to, in order. */
  readonly refused: string[] = [];

  constructor(readonly socket: string) {
    this.server = net.createServer((client) => this.handle(this.track(client)));
  }

  /**
   * Sends connections for `target` to 127.0.0.1:`port`. `target` is what the API server dials: the Service's
   * DNS name and port (`name.namespace.svc:443`) or its ClusterIP and port.
   */
  route(target: string, port: number): void {
    this.routes.set(target, port);
  }

  listen(): Promise<void> {
    fs.rmSync(this.socket, { force: true });
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.socket, () => resolve());
    });
  }

  /** Stops listening and cuts every tunnel: a keep-alive connection would otherwise hold close() forever. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  private track(socket: net.Socket): net.Socket {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  }

  private handle(client: net.Socket): void {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.removeListener('data', onData);
      const match = /^CONNECT (\S+) HTTP\/1\.[01]\r\n/.exec(head.subarray(0, end).toString('latin1'));
      const target = match?.[1] ?? '';
      void this.lookup(target).then((port) => {
        if (port === undefined) {
          this.refused.push(target);
          client.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
        } else {
          this.tunnel(client, port, head.subarray(end + 4));
        }
      });
    };
    client.on('data', onData);
    client.on('error', () => client.destroy());
  }

  private async lookup(target: string): Promise<number | undefined> {
    const direct = this.routes.get(target);
    if (direct !== undefined || this.resolver === undefined) return direct;
    const colon = target.lastIndexOf(':');
    const name = await this.resolver(target.slice(0, colon)).catch(() => undefined);
    return name === undefined ? undefined : this.routes.get(`${name}${target.slice(colon)}`);
  }

  private tunnel(client: net.Socket, port: number, rest: Buffer): void {
    const upstream = this.track(net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
    }));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  }
}

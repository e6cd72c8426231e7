import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A node http server on a free 127.0.0.1 port, for the fake venues. It keeps its sockets, so
 * `close()` ends kept-alive connections at once instead of waiting for them to go idle.
 */
export class LocalHttpServer {
  /** TCP connections accepted so far (keep-alive reuses them). */
  connections = 0;
  /** When each was accepted, in wall-clock ms (performance.now()). */
  readonly connectedAt: number[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: http.Server) {
    server.on('connection', (socket) => {
      this.connections += 1;
      this.connectedAt.push(performance.now());
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async listen(handler: http.RequestListener): Promise<LocalHttpServer> {
    const local = new LocalHttpServer(http.createServer(handler));
    await new Promise<void>((resolve) => local.server.listen(0, '127.0.0.1', resolve));
    return local;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

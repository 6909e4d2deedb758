import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's pick, from its ephemeral range). */
export function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

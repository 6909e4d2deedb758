/**
 * Ports for the processes tests start. Every port a test's process opens is chosen here, free at the time, and given
 * to the process explicitly: a fixed port (or a documented default, such as `npm start`'s 3000 and 9464) would
 * collide with a platform the developer keeps running on the same machine.
 */
import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:net';

/** Listens on 127.0.0.1:`port` (0: the kernel's pick); answers the server, or undefined when the port is taken. */
export function hold(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

async function release(servers: Server[]): Promise<void> {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
}

/** A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's pick, from its ephemeral range). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `count` different free ports, held together until all are found so that none is answered twice. With `below`,
 * each is under it (Temporal keeps membership ports in a smallint, under 32768, where the kernel never picks): tried
 * at random from 10000 up.
 */
export async function freePorts(count: number, { below }: { below?: number } = {}): Promise<number[]> {
  const held: Server[] = [];
  try {
    for (let tries = 0; held.length < count; tries += 1) {
      if (tries > 100 * count) throw new Error(`no ${count} free ports${below ? ` below ${below}` : ''} after ${tries} tries`);
      const server = await hold(below ? 10_000 + randomInt(below - 10_000) : 0);
      if (server) held.push(server);
    }
    return held.map(portOf);
  } finally {
    await release(held);
  }
}

/** The first of `length` consecutive free ports, for a process that takes ports at fixed offsets from one it is given. */
export async function freePortRun(length: number): Promise<number> {
  for (let tries = 0; tries < 100; tries += 1) {
    const held = [await hold(0)];
    const first = portOf(held[0]!);
    for (let port = first + 1; port < first + length && port <= 65_535 && held.every(Boolean); port += 1) held.push(await hold(port));
    await release(held.filter((server): server is Server => server !== undefined));
    if (held.length === length && held.every(Boolean)) return first;
  }
  throw new Error(`no ${length} consecutive free ports after 100 tries`);
}

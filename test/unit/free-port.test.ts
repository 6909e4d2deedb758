import type { Server } from 'node:net';
import { expect } from 'chai';
import { freePortRun, freePorts, hold } from '../setup/free-port.js';

/** Holds every port (each must be free), then lets them go. */
async function bindable(ports: number[]): Promise<boolean> {
  const servers = await Promise.all(ports.map(hold));
  await Promise.all(servers.filter((s): s is Server => s !== undefined).map((s) => new Promise((resolve) => s.close(resolve))));
  return servers.every(Boolean);
}

describe('free ports for the processes tests start', () => {
  it('answers different ports that can be listened on', async () => {
    const ports = await freePorts(8);
    expect(new Set(ports).size).to.equal(8);
    expect(await bindable(ports)).to.equal(true);
  });

  it('keeps ports below a limit when asked (Temporal membership ports are smallints), never the kernel pick above it', async () => {
    const ports = await freePorts(5, { below: 32_768 });
    expect(new Set(ports).size).to.equal(5);
    expect(
      ports.every((port) => port >= 10_000 && port < 32_768),
      JSON.stringify(ports),
    ).to.equal(true);
    expect(await bindable(ports)).to.equal(true);
  });

  it('finds a run of consecutive free ports (a process given one port takes the next ones too)', async () => {
    const first = await freePortRun(3);
    expect(await bindable([first, first + 1, first + 2])).to.equal(true);
  });

  it('tells a taken port from a free one', async () => {
    const [port] = await freePorts(1);
    const server = (await hold(port!))!;
    try {
      expect(await hold(port!)).to.equal(undefined);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

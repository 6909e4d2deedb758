import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { dynamicConfig, frontendAddress, loadTopology, postgresEndpoint, serverConfig } from '../../launcher/cluster/topology.js';

type Rendered = {
  persistence: {
    numHistoryShards: number;
    datastores: Record<string, { sql: { databaseName: string; connectAddr: string; user: string; maxConns: number } }>;
  };
  services: Record<string, { rpc: { grpcPort: number; membershipPort: number } }>;
  publicClient: { hostPort: string };
};

describe('cluster topology (launcher/cluster/cluster.json)', () => {
  const topology = loadTopology();
  const pg = postgresEndpoint('postgres://temporal:s%40cret@db.internal:6543/agentry');

  it('runs two history processes beside one frontend, matching and internal worker, on distinct ports', () => {
    const services = topology.processes.map((p) => p.service).sort();
    expect(services).to.deep.equal(['frontend', 'history', 'history', 'matching', 'worker']);
    const ports = topology.processes.flatMap((p) => [p.grpcPort, p.membershipPort, ...(p.httpPort ? [p.httpPort] : [])]);
    expect(new Set([...ports, topology.ui.port]).size).to.equal(ports.length + 1);
    expect(frontendAddress(topology)).to.equal(`127.0.0.1:${topology.processes.find((p) => p.service === 'frontend')!.grpcPort}`);
  });

  it("renders each process's server configuration: its own ports, every service known, the shared databases", () => {
    for (const process of topology.processes) {
      const config = serverConfig(topology, process, pg, '/tmp/dc.yaml') as Rendered;
      expect(Object.keys(config.services).sort()).to.deep.equal(['frontend', 'history', 'matching', 'worker']);
      expect(config.services[process.service]!.rpc).to.include({ grpcPort: process.grpcPort, membershipPort: process.membershipPort });
      expect(config.persistence.numHistoryShards).to.equal(topology.numHistoryShards);
      expect(config.persistence.datastores.default!.sql).to.include({
        databaseName: topology.databases.default,
        connectAddr: 'db.internal:6543',
        user: 'temporal',
        maxConns: topology.persistence.maxConns,
      });
      expect(config.persistence.datastores.visibility!.sql.databaseName).to.equal(topology.databases.visibility);
      expect(config.publicClient.hostPort).to.equal(frontendAddress(topology));
    }
    expect(pg.password).to.equal('s@cret');
  });

  it('writes dynamic config in Temporal form and refuses a topology without a history process', () => {
    expect(dynamicConfig(topology)).to.deep.include({ 'system.enableActivityEagerExecution': [{ value: true }] });
    const file = join(mkdtempSync(join(tmpdir(), 'topology-')), 'cluster.json');
    writeFileSync(file, JSON.stringify({ ...topology, processes: topology.processes.filter((p) => p.service !== 'history') }));
    expect(() => loadTopology(file)).to.throw(/no history process/);
  });
});

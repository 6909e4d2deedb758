import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  agentryEnv,
  COMPOSE_FILE,
  composeFiles,
  MOUNT_DIR,
  serviceName,
  TEMPLATE,
  temporalServices,
  yaml,
} from '../../launcher/cluster/compose-file.js';
import { loadTopology } from '../../launcher/cluster/topology.js';
import { projectRoot } from '../../launcher/temporal-cli.js';
import { loadConfig } from '../../lib/config.js';
import { REFUSE_PRIVATE } from '../../lib/outbound/address-policy.js';

type Service = { image: string; entrypoint?: string[]; command?: string[]; depends_on?: Record<string, { condition: string }>; ports?: string[] };

describe('temporal-docker-compose.yml (generated from launcher/cluster/cluster.json)', () => {
  const topology = loadTopology();
  const files = composeFiles(topology);
  const services = temporalServices(topology) as Record<string, Service>;
  const servers = topology.processes.map((p) => ({ process: p, service: services[serviceName(p)]! }));

  it('is committed as `npm run compose` writes it, with no mounted file left from an older cluster.json', () => {
    for (const [file, text] of Object.entries(files)) {
      expect(existsSync(join(projectRoot, file)), `${file} is missing: run npm run compose`).to.equal(true);
      expect(
        readFileSync(join(projectRoot, file), 'utf8'),
        `${file} differs from what launcher/cluster/cluster.json gives: run npm run compose`,
      ).to.equal(text);
    }
    const mounted = readdirSync(join(projectRoot, MOUNT_DIR)).map((name) => `${MOUNT_DIR}/${name}`);
    expect(mounted.sort(), `${MOUNT_DIR} holds files no process uses: run npm run compose`).to.deep.equal(
      [TEMPLATE, ...Object.keys(files).filter((file) => file.startsWith(`${MOUNT_DIR}/`))].sort(),
    );
    expect(files[COMPOSE_FILE]).not.to.match(/\{\{[\w-]+\}\}/);
  });

  it('runs one server container per process with its service role, the two history processes included, each after the set-up', () => {
    expect(servers.filter(({ process }) => process.service === 'history')).to.have.length(2);
    for (const { process, service } of servers) {
      expect(service.image).to.equal(`temporalio/server:${topology.serverVersion}`);
      expect(service.entrypoint!.slice(0, 2)).to.deep.equal(['temporal-server', '--root']);
      expect(service.entrypoint!.slice(-4)).to.deep.equal(['--allow-no-auth', 'start', '--service', process.service]);
      expect(service.depends_on).to.deep.equal({ 'temporal-setup': { condition: 'service_completed_successfully' } });
      expect(files[`${MOUNT_DIR}/${process.name}.yml`], process.name).to.include(`grpcPort: ${process.grpcPort}`);
    }
    expect(Object.keys(services).filter((name) => services[name]!.image.startsWith('temporalio/server:'))).to.have.length(topology.processes.length);
  });

  it('points agentry at the frontend container, whose ports are published as in cluster.json, once the namespace is registered', () => {
    const frontend = servers.find(({ process }) => process.service === 'frontend')!;
    const env = agentryEnv(topology);
    expect(env.TEMPORAL_ADDRESS).to.equal(`${serviceName(frontend.process)}:${frontend.process.grpcPort}`);
    expect(frontend.service.ports).to.deep.equal([
      `${frontend.process.grpcPort}:${frontend.process.grpcPort}`,
      `${frontend.process.httpPort}:${frontend.process.httpPort}`,
    ]);
    expect(services['temporal-ui']!.ports).to.deep.equal([`${topology.ui.port}:${topology.ui.port}`]);
    expect(files[COMPOSE_FILE]).to.include(yaml(env, '  '));
    // The settings key comes from the shell that runs compose (compose interpolates it); compose never makes one.
    expect(env.SETTINGS_ENCRYPTION_KEY).to.equal('${SETTINGS_ENCRYPTION_KEY:-}');
    // Calls to users' URLs cannot reach the cluster's own network (PostgreSQL, Temporal) by default.
    expect(loadConfig({ ...env, SETTINGS_ENCRYPTION_KEY: '' }).outbound).to.deep.equal(REFUSE_PRIVATE);
    // api, worker and turns-worker start once the namespace and its search attributes are in place.
    expect(files[COMPOSE_FILE]!.match(/ {6}temporal-namespace:\n {8}condition: service_completed_successfully/g)).to.have.length(3);
    const registration = services['temporal-namespace']!.command![0]!;
    for (const name of ['AgentryAccountId', 'AgentryAutomationId', 'AgentryAgentId', 'AgentryTriggerType', 'AgentryEventId'])
      expect(registration).to.include(`--name ${name} `);
  });

  it('writes YAML that reads back as the data (quoted where a plain scalar would read otherwise)', () => {
    expect(yaml({ a: { b: ['x', 1], c: 'yes', d: '8433:8433', e: [] }, f: [{ g: 'two\nlines' }] })).to.equal(
      ['a:', '  b: ["x", 1]', '  c: "yes"', '  d: "8433:8433"', '  e: []', 'f:', '  - g: |-', '      two', '      lines'].join('\n'),
    );
  });
});

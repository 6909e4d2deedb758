/**
 * temporal-docker-compose.yml and the files its Temporal containers mount, generated from launcher/cluster/cluster.json by
 * `npm run compose` (scripts/compose.ts), so that Docker runs the cluster `npm run cluster` runs (start.ts): the two
 * databases created and migrated first, one server container per process with the configuration topology.ts renders
 * for it, the namespace and agentry's search attributes registered once the frontend answers, the Web UI, then
 * agentry's own services. test/unit/cluster-compose.test.ts fails while the committed files differ from this output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../lib/config.js';
import { projectRoot } from '../temporal-cli.js';
import { cliSearchAttributes } from '../../lib/search-attributes.js';
import {
  dynamicConfig,
  frontendAddress,
  postgresEndpoint,
  serverArgs,
  serverConfig,
  sqlToolArgs,
  type ClusterProcess,
  type ClusterTopology,
} from './topology.js';

export const COMPOSE_FILE = 'temporal-docker-compose.yml';
/** The host folder of the mounted files (`.yml`, as the compose file: Prettier leaves them to this generator). */
export const MOUNT_DIR = 'launcher/cluster/docker';
/** The compose file around the generated parts: agentry's own services, with their comments. */
export const TEMPLATE = `${MOUNT_DIR}/compose.template.yml`;
/** A server container's `--root`, as `.data/cluster/<name>` is with `npm run cluster`: `config/development.yaml` below it. */
const ROOT = '/etc/agentry/temporal';
const SETUP = 'temporal-setup';
const NAMESPACE_SETUP = 'temporal-namespace';

/** A process's service (and so host) name. */
export const serviceName = (process: ClusterProcess) => `temporal-${process.name}`;

/**
 * temporalio/admin-tools (temporal-sql-tool, the temporal CLI) of the server's version: 1.29.x images are tagged with
 * their tctl and CLI versions too (temporalio/docker-compose's .env for 1.29.1); from 1.30 on, with the server's alone.
 */
const adminToolsImage = (serverVersion: string) =>
  `temporalio/admin-tools:${({ '1.29.1': '1.29.1-tctl-1.18.4-cli-1.5.0' } as Record<string, string>)[serverVersion] ?? serverVersion}`;

const frontendOf = (topology: ClusterTopology) => topology.processes.find((p) => p.service === 'frontend')!;
const completed = (...names: string[]) => Object.fromEntries(names.map((name) => [name, { condition: 'service_completed_successfully' }]));
/** A step of a set-up script, tried again until it succeeds, for five minutes at most (the servers may still be starting). */
const retry = (command: string) => `timeout 300 sh -c 'until ${command}; do sleep 2; done'`;

/** The environment of agentry's containers (what lib/config.ts reads): TEMPORAL_ADDRESS is the frontend's container. */
export function agentryEnv(topology: ClusterTopology): Record<string, string> {
  return {
    DATABASE_URL: 'postgres://agentry:agentry@postgres:5432/agentry',
    TEMPORAL_ADDRESS: frontendAddress(topology, serviceName(frontendOf(topology))),
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: 'agentry',
    TEMPORAL_UI_URL: `http://localhost:${topology.ui.port}`,
    PUBLIC_BASE_URL: 'http://localhost:3000',
    LOG_LEVEL: 'INFO',
    LOG_FORMAT: 'json',
    FILES_DIR: '/var/lib/agentry/files',
    // Calls to users' URLs never reach the cluster's own network (PostgreSQL, Temporal) unless an operator says so.
    OUTBOUND_ALLOW_PRIVATE: 'false',
    // Taken from the shell that runs compose, the same in every container; unset, the API and workers say at start
    // that messaging channels and identified widget visitors are off (compose never makes one).
    SETTINGS_ENCRYPTION_KEY: '${SETTINGS_ENCRYPTION_KEY:-}',
  };
}

/** agentry's configuration in its containers, and the PostgreSQL its Temporal databases go on (as start.ts has it). */
function settings(topology: ClusterTopology) {
  const { SETTINGS_ENCRYPTION_KEY: _fromTheShell, ...env } = agentryEnv(topology);
  const config = loadConfig(env);
  return { config, pg: postgresEndpoint(config.databaseUrl) };
}

/** The Temporal services of the compose file, by name: set-up, one container per process, namespace set-up, UI. */
export function temporalServices(topology: ClusterTopology): Record<string, Record<string, unknown>> {
  const { config, pg } = settings(topology);
  const frontend = frontendOf(topology);
  const address = config.temporal.address;
  const adminTools = adminToolsImage(topology.serverVersion);
  // As schema.ts runs it; each step does nothing when already done. The schemas are the ones built into the tool.
  const sqlTool = (database: string, command: string) => `temporal-sql-tool ${sqlToolArgs(pg, database).join(' ')} ${command}`;
  const databases = { temporal: topology.databases.default, visibility: topology.databases.visibility };
  const schemaScript = Object.entries(databases).flatMap(([kind, database]) =>
    ['create-database', 'setup-schema --version 0.0', `update-schema --schema-name postgresql/v12/${kind}`].map((step) => sqlTool(database, step)),
  );
  // As namespace.ts does it: the namespace when missing, then the search attributes it lacks.
  const cli = `--address ${address} --namespace ${config.temporal.namespace}`;
  const attributes = cliSearchAttributes().flatMap(({ name, type }) => ['--name', name, '--type', type]);
  const namespaceScript = [
    retry(`temporal operator cluster health ${cli}`),
    retry(
      `temporal operator namespace describe ${cli} >/dev/null 2>&1 || temporal operator namespace create ${cli} --retention ${config.runHistoryRetentionDays}d`,
    ),
    retry(`temporal operator search-attribute create ${cli} ${attributes.join(' ')}`),
  ];
  const servers = topology.processes.map((process) => [
    serviceName(process),
    {
      image: `temporalio/server:${topology.serverVersion}`,
      depends_on: completed(SETUP),
      // As start.ts starts each process (the image's own entrypoint would render a configuration of its own).
      entrypoint: ['temporal-server', ...serverArgs(ROOT, process.service)],
      volumes: [
        `./${MOUNT_DIR}/${process.name}.yml:${ROOT}/config/development.yaml:ro`,
        `./${MOUNT_DIR}/dynamicconfig.yml:${ROOT}/dynamicconfig.yaml:ro`,
      ],
      // The launcher's supervisor restarts a dead server process; so does Docker.
      restart: 'unless-stopped',
      ...(process === frontend && {
        ports: [frontend.grpcPort, frontend.httpPort].filter(Boolean).map((port) => `${port}:${port}`),
        // It listens on its container's address only, not on localhost.
        healthcheck: { test: ['CMD', 'nc', '-z', serviceName(frontend), String(frontend.grpcPort)], interval: '3s', timeout: '5s', retries: 60 },
      }),
    },
  ]);
  const frontendHealthy = { [serviceName(frontend)]: { condition: 'service_healthy' } };
  return {
    [SETUP]: {
      image: adminTools,
      depends_on: { postgres: { condition: 'service_healthy' } },
      entrypoint: ['sh', '-ec'],
      command: [schemaScript.join('\n')],
    },
    ...Object.fromEntries(servers),
    [NAMESPACE_SETUP]: {
      image: adminTools,
      depends_on: { ...Object.fromEntries(servers.map(([name]) => [name, { condition: 'service_started' }])), ...frontendHealthy },
      entrypoint: ['sh', '-ec'],
      command: [namespaceScript.join('\n')],
    },
    'temporal-ui': {
      image: `temporalio/ui:${topology.ui.version}`,
      depends_on: frontendHealthy,
      environment: {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_UI_PORT: String(topology.ui.port),
        TEMPORAL_DEFAULT_NAMESPACE: config.temporal.namespace,
        TEMPORAL_CORS_ORIGINS: 'http://localhost:3000',
      },
      ports: [`${topology.ui.port}:${topology.ui.port}`],
    },
  };
}

/**
 * Every generated file by its path from the project root: the compose file (the template with the Temporal services,
 * agentry's environment and what they depend on filled in), each process's configuration, the dynamic configuration.
 */
export function composeFiles(topology: ClusterTopology, template = readFileSync(join(projectRoot, TEMPLATE), 'utf8')): Record<string, string> {
  const env = agentryEnv(topology);
  const { pg } = settings(topology);
  const host = serviceName(frontendOf(topology));
  const configs = topology.processes.map((p) => [`${MOUNT_DIR}/${p.name}.yml`, serverConfig(topology, p, pg, `${ROOT}/dynamicconfig.yaml`, host)]);
  const slots: Record<string, string> = {
    'ui-url': env.TEMPORAL_UI_URL!,
    'agentry-env': yaml(env, '  '),
    'temporal-connections': String(topology.processes.length * (topology.persistence.maxConns + topology.persistence.visibilityMaxConns)),
    'temporal-services': Object.entries(temporalServices(topology))
      .map(([name, service]) => yaml({ [name]: service }, '  '))
      .join('\n\n'),
    'temporal-ready': yaml(completed(NAMESPACE_SETUP), '      '),
  };
  return {
    [COMPOSE_FILE]: template.replace(/\{\{([\w-]+)\}\}/g, (_, slot: string) => {
      if (slots[slot] === undefined) throw new Error(`${TEMPLATE}: unknown slot {{${slot}}}`);
      return slots[slot];
    }),
    ...Object.fromEntries(
      [...configs, [`${MOUNT_DIR}/dynamicconfig.yml`, dynamicConfig(topology)]].map(([file, value]) => [file, yaml(value) + '\n']),
    ),
  };
}

/**
 * YAML text of plain data, in block style: mappings and lists of mappings on lines of their own, lists of scalars in
 * flow style, multi-line strings as literal blocks, strings plain when YAML reads them back as those strings.
 */
export function yaml(value: unknown, indent = ''): string {
  return lines(value as object, indent).join('\n');
}

const scalar = (v: unknown) =>
  typeof v === 'string' && !(/^[A-Za-z/][\w./:@-]*$/.test(v) && !v.endsWith(':') && !/^(true|false|yes|no|on|off|y|n|null)$/i.test(v))
    ? JSON.stringify(v)
    : String(v);
const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;

function lines(value: object, indent: string): string[] {
  if (Array.isArray(value))
    return value.flatMap((item: unknown) => {
      if (!isObject(item) || Array.isArray(item) || !Object.keys(item).length) return field(`${indent}-`, item, indent);
      const [first, ...rest] = lines(item, `${indent}  `);
      return [`${indent}- ${first!.trimStart()}`, ...rest];
    });
  return Object.entries(value).flatMap(([key, v]) => field(`${indent}${/^[A-Za-z_][\w.-]*$/.test(key) ? key : JSON.stringify(key)}:`, v, indent));
}

function field(prefix: string, value: unknown, indent: string): string[] {
  if (typeof value === 'string' && value.includes('\n'))
    return [`${prefix} |-`, ...value.split('\n').map((line) => (line ? `${indent}  ${line}` : ''))];
  if (!isObject(value)) return [`${prefix} ${scalar(value)}`];
  // A list of scalars on one line while it fits the project's width (Prettier's 150 columns).
  const flow = Array.isArray(value) && `${prefix} [${value.map((v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(', ')}]`;
  if (flow && flow.length <= 150 && value.every((v: unknown) => !isObject(v) && !String(v).includes('\n'))) return [flow];
  if (!Object.keys(value).length) return [`${prefix} {}`];
  return [prefix, ...lines(value, `${indent}  `)];
}

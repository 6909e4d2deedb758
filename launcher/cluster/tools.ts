/**
 * The Temporal server, its SQL tool and the Temporal Web UI server, built once from the Go module proxy into `.tools/bin` (as the CLI is, by
 * scripts/ensure-tools.mjs), and the PostgreSQL schemas that ship in the same module.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { projectRoot } from '../temporal-cli.js';

export interface ClusterTools {
  server: string;
  sqlTool: string;
  /** The Temporal Web UI server. */
  uiServer: string;
  /** `schema/postgresql/v12` of the server module: `temporal/versioned` and `visibility/versioned` below it. */
  schemaDir: string;
}

const SERVER_MODULE = 'go.temporal.io/server';
const UI_MODULE = 'github.com/temporalio/ui-server/v2';

function findGo(): string {
  const candidates = [process.env.GO, ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'go')), '/usr/local/go/bin/go'];
  const go = candidates.find((path) => path && existsSync(path));
  if (!go) throw new Error('the Temporal server is not built yet and no Go toolchain was found to build it (install Go)');
  return go;
}

/**
 * `go install` of `packages` (all of one module version), each binary moved to its path in `targets` (go names a
 * binary after its folder: server, sql).
 */
function goInstall(go: string, env: NodeJS.ProcessEnv, packages: string[], targets: Record<string, string>): void {
  const out = mkdtempSync(join(tmpdir(), 'agentry-go-build-'));
  try {
    const result = spawnSync(go, ['install', ...packages], { env: { ...env, GOBIN: out }, stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) throw new Error(`go install ${packages.join(' ')} failed (exit code ${result.status})`);
    for (const [built, target] of Object.entries(targets)) {
      mkdirSync(dirname(target), { recursive: true });
      renameSync(join(out, built), target);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Builds what is missing (minutes, the first time only) and answers where everything is. */
export function ensureClusterTools(versions: { server: string; ui: string }, say: (message: string) => void): ClusterTools {
  const bin = join(projectRoot, '.tools', 'bin');
  const tools = { server: join(bin, 'temporal-server'), sqlTool: join(bin, 'temporal-sql-tool'), uiServer: join(bin, 'temporal-ui-server') };
  const go = findGo();
  const env = { ...process.env, CGO_ENABLED: '0' };
  if (!existsSync(tools.server) || !existsSync(tools.sqlTool)) {
    say(`building the Temporal server ${versions.server} and its SQL tool with go install (first time only, takes minutes)`);
    const packages = [`${SERVER_MODULE}/cmd/server@v${versions.server}`, `${SERVER_MODULE}/cmd/tools/sql@v${versions.server}`];
    goInstall(go, env, packages, { server: tools.server, sql: tools.sqlTool });
  }
  if (!existsSync(tools.uiServer)) {
    say(`building the Temporal UI server ${versions.ui} with go install (first time only)`);
    goInstall(go, env, [`${UI_MODULE}/cmd/server@v${versions.ui}`], { server: tools.uiServer });
  }
  // The module's source holds the schemas; `go mod download` answers its folder (and fetches it if the cache lost it).
  const info = JSON.parse(execFileSync(go, ['mod', 'download', '-json', `${SERVER_MODULE}@v${versions.server}`], { env, encoding: 'utf8' })) as {
    Dir: string;
  };
  return { ...tools, schemaDir: join(info.Dir, 'schema', 'postgresql', 'v12') };
}

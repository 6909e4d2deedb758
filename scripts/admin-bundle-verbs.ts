/**
 * Admin verbs that move agents, workflows and table schemas between accounts and instances as files: `export` writes
 * a bundle (what `GET /agents/{id}/export`, `GET /workflows/{id}/export` and `GET /tables/{name}/export` answer), `import` imports one as `POST /imports`
 * does (a dry run with --dry-run, removals with --prune). Run them against each instance's DATABASE_URL.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { bundleText } from '../lib/bundles/bundle-format.js';
import { exportAgent } from '../db/bundles/agent-bundle.js';
import { importBundle } from '../db/bundles/imports.service.js';
import { exportWorkflow } from '../db/bundles/workflow-bundle.js';
import { exportTable } from '../db/bundles/table-bundle.js';
import { importRules } from '../api/schemas/node-shapes.js';
import type { ArgReaders } from './admin-catalog-verbs.js';

type Options = Record<string, string | boolean | undefined>;
type Verb = (em: EntityManager, options: Options) => Promise<{ json: unknown; text: string }>;

export const BUNDLE_USAGE = `  export      --account ID (--agent UUID [--documents] | --workflow ID [--tables] | --table NAME | --object NAME) [--file PATH]
                                               an agent, a workflow or a schema as a bundle file (stdout without --file)
  import      --account ID --file PATH [--dry-run] [--prune] [--mapping JSON]
                                               import a bundle: the plan (what is created, ids, what to connect);
                                               --prune removes what an earlier import made that it no longer has`;

export const BUNDLE_OPTIONS = {
  agent: { type: 'string' },
  workflow: { type: 'string' },
  documents: { type: 'boolean', default: false },
  tables: { type: 'boolean', default: false },
  table: { type: 'string' },
  object: { type: 'string' },
  file: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  prune: { type: 'boolean', default: false },
  mapping: { type: 'string' },
} as const;

export function bundleVerbs({ required, id, usage }: ArgReaders): Record<string, Verb> {
  return {
    async export(em, o) {
      const accountId = id(o, 'account');
      const what = (['agent', 'workflow', 'table', 'object'] as const).filter((k) => o[k]);
      if (what.length !== 1) throw usage('give one of --agent UUID, --workflow ID, --table NAME or --object NAME');
      const bundle =
        what[0] === 'agent'
          ? await exportAgent(em, accountId, required(o, 'agent'), { documents: !!o.documents })
          : what[0] === 'workflow'
            ? await exportWorkflow(em, accountId, id(o, 'workflow'), { tables: !!o.tables })
            : await exportTable(em, accountId, what[0] === 'table' ? 'TABLE' : 'OBJECT', required(o, what[0]));
      const text = bundleText(bundle);
      if (typeof o.file === 'string' && o.file) {
        await writeFile(o.file, text);
        return {
          json: { file: o.file, kind: bundle.kind, checksum: bundle.checksum },
          text: `wrote ${bundle.kind} bundle ${o.file} (${bundle.checksum})`,
        };
      }
      return { json: bundle, text: text.trimEnd() };
    },
    async import(em, o) {
      const accountId = id(o, 'account');
      const file = required(o, 'file');
      let bundle: Record<string, unknown>;
      let mapping: Record<string, string | number> | undefined;
      try {
        bundle = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
        mapping = typeof o.mapping === 'string' ? (JSON.parse(o.mapping) as Record<string, string | number>) : undefined;
      } catch (error) {
        throw usage(`cannot read the bundle or the mapping: ${(error as Error).message}`);
      }
      const plan = await importBundle(em, accountId, { bundle, dryRun: !!o['dry-run'], prune: !!o.prune, mapping }, importRules());
      const line = (verb: string, c: { kind: string; name: string; sourceId: unknown; id: unknown }) =>
        `  ${verb.padEnd(6)} ${c.kind.padEnd(16)} ${JSON.stringify(c.name)}  ${String(c.sourceId)} → ${String(c.id ?? '(new)')}`;
      const head = {
        unchanged: `unchanged: imported before as ${plan.kind} ${plan.target.id}`,
        update: `${plan.kind} ${plan.target.id} (update)`,
        create: `${plan.kind} ${plan.target.id ?? '(new)'}`,
      }[plan.action];
      const lines = [
        `${plan.dryRun ? 'dry run: ' : ''}${head}`,
        ...plan.create.map((c) => line('create', c)),
        ...plan.update.flatMap((c) => [line('update', c), ...c.changes.map((change) => `           ${change}`)]),
        ...plan.keep.map((c) => line('keep', c)),
        ...plan.remove.map((c) => line('remove', c)),
        ...plan.stale.map((c) => `${line('stale', c)}  (no longer in the bundle: left here; --prune removes it)`),
        ...plan.connect.map((c) => `  connect ${c.reference}: ${c.message}`),
        ...plan.conflicts.map((c) => `  conflict: ${c}`),
        ...(plan.checksumMatches ? [] : ['  note: the bundle was edited since its export (its checksum differs)']),
      ];
      return { json: plan, text: lines.join('\n') };
    },
  };
}

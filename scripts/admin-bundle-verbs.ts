/**
 * Admin verbs that move agents and workflows between accounts and instances as files: `export` writes a bundle
 * (what `GET /agents/{id}/export` and `GET /workflows/{id}/export` answer), `import` imports one as `POST /imports`
 * does (a dry run with --dry-run). Run them against each instance's DATABASE_URL.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { bundleText } from '../lib/bundles/bundle-format.js';
import { exportAgent } from '../db/bundles/agent-bundle.js';
import { importBundle } from '../db/bundles/imports.service.js';
import { exportWorkflow } from '../db/bundles/workflow-bundle.js';
import { importRules } from '../api/schemas/node-shapes.js';
import type { ArgReaders } from './admin-catalog-verbs.js';

type Options = Record<string, string | boolean | undefined>;
type Verb = (em: EntityManager, options: Options) => Promise<{ json: unknown; text: string }>;

export const BUNDLE_USAGE = `  export      --account ID (--agent UUID [--documents] | --workflow ID) [--file PATH]
                                               an agent or a workflow as a bundle file (stdout without --file)
  import      --account ID --file PATH [--dry-run] [--mapping JSON]
                                               import a bundle: the plan (what is created, ids, what to connect)`;

export const BUNDLE_OPTIONS = {
  agent: { type: 'string' },
  workflow: { type: 'string' },
  documents: { type: 'boolean', default: false },
  file: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  mapping: { type: 'string' },
} as const;

export function bundleVerbs({ required, id, usage }: ArgReaders): Record<string, Verb> {
  return {
    async export(em, o) {
      const accountId = id(o, 'account');
      if (!o.agent === !o.workflow) throw usage('give one of --agent UUID or --workflow ID');
      const bundle = o.agent
        ? await exportAgent(em, accountId, required(o, 'agent'), { documents: !!o.documents })
        : await exportWorkflow(em, accountId, id(o, 'workflow'));
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
      const plan = await importBundle(em, accountId, { bundle, dryRun: !!o['dry-run'], mapping }, importRules());
      const lines = [
        `${plan.dryRun ? 'dry run: ' : ''}${plan.action === 'unchanged' ? `unchanged: imported before as ${plan.kind} ${plan.target.id}` : `${plan.kind} ${plan.target.id ?? '(new)'}`}`,
        ...plan.create.map((c) => `  create ${c.kind.padEnd(16)} ${JSON.stringify(c.name)}  ${String(c.sourceId)} → ${c.id ?? '(new)'}`),
        ...plan.connect.map((c) => `  connect ${c.reference}: ${c.message}`),
        ...plan.conflicts.map((c) => `  conflict: ${c}`),
        ...(plan.checksumMatches ? [] : ['  note: the bundle was edited since its export (its checksum differs)']),
      ];
      return { json: plan, text: lines.join('\n') };
    },
  };
}

/**
 * An agent as a bundle (lib/bundles/bundle-format.ts): the agent, its settings documents (agent setting, theme,
 * channels) and its flows' graphs without any secret, the numbers and pages that answer it (to connect where it is imported), its variables and intents, each flow's draft and live graphs, and the custom tools,
 * playbooks and knowledge bases its settings and nodes reference (with `documents`, the knowledge bases' documents
 * too). Ids stay those of the exporting account (`ref`); an import maps them. Nothing time-dependent is exported, so
 * exporting an unchanged agent twice gives the same bytes.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sealBundle, withoutSecrets, type Bundle } from '../../lib/bundles/bundle-format.js';
import { Account } from '../accounts/account.entity.js';
import { AgentConfig } from '../agents/agent-config.entity.js';
import { AgentResource } from '../agents/agent-resource.entity.js';
import { findAgent } from '../agents/agents.service.js';
import { agentVariables } from '../agents/agent-variables.js';
import { listFlows } from '../agents/flows.service.js';
import { listIntents } from '../agents/intents.service.js';
import { GraphSnapshot } from '../automations/graph-snapshot.entity.js';
import { listVariables } from '../automations/variables.service.js';
import { KnowledgeDocument } from '../knowledge/knowledge-document.entity.js';
import { bundledGraph } from './bundle-graphs.js';
import { agentChannels } from './channel-references.js';

const RESOURCE_FIELDS = ['customToolIds', 'playbookIds', 'knowledgeBaseIds'];

/** Ids of account resources `data` names. */
function resourceIdsOf(data: Record<string, unknown>): number[] {
  return RESOURCE_FIELDS.flatMap((field) => (Array.isArray(data[field]) ? (data[field] as unknown[]) : []))
    .map(Number)
    .filter(Number.isInteger);
}

export async function exportAgent(em: EntityManager, accountId: number, agentId: string, options: { documents?: boolean } = {}): Promise<Bundle> {
  const agent = await findAgent(em, accountId, agentId);
  const account = await em.findOneOrFail(Account, { id: accountId });
  const [configs, variables, intents, flows, channels] = await Promise.all([
    em.find(AgentConfig, { agent }, { orderBy: { kind: 'asc' } }),
    listVariables(em, agentVariables(agent)),
    listIntents(em, agent),
    listFlows(em, agent),
    agentChannels(em, accountId, agent.id),
  ]);
  const snapshotIds = flows.flatMap((f) => [f.draftSnapshotId, f.liveSnapshotId ?? []].flat());
  const snapshots = new Map((await em.find(GraphSnapshot, { id: { $in: snapshotIds } })).map((s) => [s.id, s]));
  const removed: string[] = [];
  const settings = Object.fromEntries(configs.map((c) => [c.kind, withoutSecrets(c.values, removed, `/agent/settings/${c.kind}`)]));
  const graphs = flows.flatMap((f) => [snapshots.get(f.draftSnapshotId), f.liveSnapshotId ? snapshots.get(f.liveSnapshotId) : undefined]);
  const resourceIds = new Set([
    ...resourceIdsOf(settings.SETTING ?? {}),
    ...graphs.flatMap((s) => (s ? s.nodes.flatMap((n) => resourceIdsOf(n.data)) : [])),
  ]);
  const resources = resourceIds.size
    ? await em.find(AgentResource, { account: accountId, id: { $in: [...resourceIds] } }, { orderBy: { id: 'asc' } })
    : [];
  const documents =
    options.documents && resources.some((r) => r.kind === 'KNOWLEDGE_BASE')
      ? await em.find(
          KnowledgeDocument,
          { knowledgeBase: { $in: resources.map((r) => r.id) } },
          { orderBy: { title: 'asc', id: 'asc' }, populate: ['body'] },
        )
      : [];
  return sealBundle('agent', {
    source: { namespace: account.namespace, id: agent.id },
    agent: {
      name: agent.name,
      description: agent.description ?? null,
      settings,
      channels,
      variables: variables.map((v) => ({ name: v.name, description: v.description })),
      intents: intents.map((i) => ({ ref: i.id, name: i.name, description: i.description, trainingPhrases: i.trainingPhrases })),
      flows: flows.map((f, i) => ({
        ref: f.id,
        name: f.name,
        description: f.description ?? null,
        status: f.status,
        isDefault: f.isDefault,
        draft: withoutSecrets(bundledGraph(snapshots.get(f.draftSnapshotId)), removed, `/agent/flows/${i}/draft`),
        live: withoutSecrets(bundledGraph(f.liveSnapshotId ? snapshots.get(f.liveSnapshotId) : null), removed, `/agent/flows/${i}/live`),
      })),
    },
    resources: resources.map((r, i) => ({
      ref: r.id,
      kind: r.kind,
      name: r.name,
      values: withoutSecrets(r.values, removed, `/resources/${i}/values`),
      ...(options.documents && r.kind === 'KNOWLEDGE_BASE'
        ? {
            documents: documents
              .filter((d) => d.knowledgeBase.id === r.id)
              .flatMap((d): Record<string, unknown>[] => {
                if (d.source === 'URL') return [{ title: d.title, url: d.url }];
                const content = d.source === 'TEXT' && d.body ? d.body.toString('utf8') : d.text;
                return content ? [{ title: d.title, content }] : [];
              }),
          }
        : {}),
    })),
    secretsRemoved: removed,
  });
}

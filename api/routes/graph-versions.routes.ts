/**
 * The versions of a graph, the same for each owner of graphs (graph.routes.ts): `<owner>/versions` (newest first),
 * `/versions/diff?from=&to=`, `/versions/{n}` with its graph, and `POST /versions/{n}/restore`, which makes that
 * graph the draft again and publishes it as the next version (If-Match: the draft graph's ETag, as for its edits).
 */
import { diffVersions, listVersions, restoreDraft, versionDetail, versionView } from '../../db/automations/versions.service.js';
import { paginate } from '../pagination.js';
import type { RouteInput, RouteRegistry } from '../route-registry.js';
import { PageQuerySchema } from '../schemas/common.schema.js';
import {
  PublishSchema,
  VersionDiffQuerySchema,
  VersionDiffSchema,
  VersionGraphSchema,
  VersionPageSchema,
  VersionSchema,
} from '../schemas/versions.schema.js';
import type { JsonSchema } from '../validation.js';
import { publisherOf, type GraphRoutesOwner } from './graph-routes-owner.js';
import { ownerOf } from './route-owner.js';

/** The path parameters of the owner with `version`. */
function versionParams(params: JsonSchema): JsonSchema {
  const properties = (params.properties ?? {}) as Record<string, JsonSchema>;
  const required = (params.required ?? []) as string[];
  return { ...params, required: [...required, 'version'], properties: { ...properties, version: { type: 'integer', minimum: 1 } } };
}

export function graphVersionRoutes<P, Doc extends { draftSnapshotId: string; liveSnapshotId?: string | null }>(
  api: RouteRegistry,
  owner: GraphRoutesOwner<P, Doc>,
  readGraph: (input: RouteInput<unknown, unknown, P>) => Promise<unknown>,
): void {
  const { tag, noun, path, params, lock } = owner;
  type Version = P & { version: number };
  const find = (input: RouteInput<unknown, unknown, P>) => ownerOf(owner, input);
  const versionsOf = async (input: RouteInput<unknown, unknown, P>) => {
    const doc = await find(input);
    return { doc, versions: { ...owner.versionsOf(doc), liveSnapshotId: doc.liveSnapshotId, draftSnapshotId: doc.draftSnapshotId } };
  };
  const withVersion = versionParams(params);
  api.add<unknown, { limit: number; cursor?: string }, P>({
    method: 'get',
    operationId: `list${noun}Versions`,
    path: `${path}/versions`,
    scope: 'any',
    tag,
    summary: 'Published versions, newest first (each publish is one)',
    params,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [version], nextCursor }', schema: VersionPageSchema } },
    handler: async (input) => paginate(await listVersions(input.em, (await versionsOf(input)).versions), input.query.limit, input.query.cursor),
  });
  api.add<unknown, { from: number; to: number }, P>({
    method: 'get',
    operationId: `get${noun}VersionDiff`,
    path: `${path}/versions/diff`,
    scope: 'any',
    tag,
    summary: 'What changed from version `from` to version `to`: nodes and edges added, removed and changed, with a line per node',
    params,
    query: VersionDiffQuerySchema,
    responses: { 200: { description: 'The diff', schema: VersionDiffSchema }, 404: { description: 'Unknown version' } },
    handler: async (input) => diffVersions(input.em, (await versionsOf(input)).versions, input.query.from, input.query.to),
  });
  api.add<unknown, unknown, Version>({
    method: 'get',
    operationId: `get${noun}Version`,
    path: `${path}/versions/:version`,
    scope: 'any',
    tag,
    summary: 'One version with its graph',
    params: withVersion,
    responses: { 200: { description: 'The version with its nodes and edges', schema: VersionGraphSchema }, 404: { description: 'Unknown version' } },
    handler: async (input) => versionDetail(input.em, (await versionsOf(input)).versions, input.params.version),
  });
  api.add<{ message?: string | null }, unknown, Version>({
    method: 'post',
    operationId: `restore${noun}Version`,
    path: `${path}/versions/:version/restore`,
    scope: 'any',
    tag,
    summary:
      "Makes the version's graph the draft again and publishes it as the next version (If-Match: the draft graph's ETag); " +
      'the message defaults to "Restored version n"',
    params: withVersion,
    body: PublishSchema,
    status: 201,
    responses: { 201: { description: 'The new version', schema: VersionSchema }, 404: { description: 'Unknown version' } },
    lock,
    etag: readGraph,
    handler: async (input) => {
      const { doc, versions } = await versionsOf(input);
      const graph = await restoreDraft(input.em, versions, input.params.version);
      owner.editOf(doc, {}).owner.onSave?.(graph);
      const message = input.body.message ?? `Restored version ${input.params.version}`;
      const live = await owner.publish(input.em, doc, { message, by: publisherOf(input.auth) });
      return versionView(live, { ...versions, liveSnapshotId: live.id });
    },
  });
}

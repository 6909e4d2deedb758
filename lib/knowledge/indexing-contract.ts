/**
 * The contract of knowledge-base indexing, shared by the API (which writes the outbox event), the dispatcher (which
 * starts the workflow) and the workflow itself. Types and pure functions only: workflow code imports it.
 */

/** The outbox event a document change writes. */
export const KNOWLEDGE_INDEX_EVENT = 'KNOWLEDGE_INDEX';

/** Input of `indexKnowledgeDocument`, and the payload of its outbox event: one revision of one document. */
export interface IndexDocumentInput {
  accountId: number;
  documentId: string;
  revision: number;
}

/** One workflow per document revision: a redelivered event starts nothing twice; a newer revision starts its own. */
export function indexWorkflowId({ documentId, revision }: IndexDocumentInput): string {
  return `knowledge:${documentId}:r${revision}`;
}

/** What a step of the indexing workflow found: the revision still current (and what it did), or gone/outdated. */
export type IndexStep = { current: true; count: number } | { current: false };

/** A passage an AI call is grounded in, as Temporal history shows it: the chunk's id and score, never its text. */
export interface PassageRef {
  chunkId: string;
  score: number;
  /** The number the model sees it under (its place in the list when absent). */
  n?: number;
}

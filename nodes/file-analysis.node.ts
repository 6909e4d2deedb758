/**
 * FILE_ANALYSIS: downloads `fileUrl` (at most 20 MB), reads its text locally (PDF text, OCR of images, plain text;
 * `integrations/ai/document-text.ts`) and has the node's FILE_ANALYSIS model answer `prompt` about it. The output is
 * `{ analysis, text }`: the model's answer (parsed when JSON) and the text it read (its first 20,000 characters).
 */
import { aiForNode, parsedOrText, text } from './support/ai-node-support.js';
import { documentText } from '../integrations/ai/document-text.js';
import { downloadFile } from '../integrations/ai/download.js';
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type NodeExecutor, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** The document text sent to the model is cut here, to stay within usual context windows. */
const MAX_TEXT_CHARS = 100_000;

const SYSTEM = 'You analyse a document for an automation. Answer what the user asks about the document text below, briefly.';

const executeFileAnalysis: NodeExecutor = async (input, context) => {
  const fileUrl = text(input.data.fileUrl).trim();
  if (!fileUrl) throw new NodeError('FILE_ANALYSIS needs a fileUrl');
  const { session, model } = await aiForNode(input, context, 'FILE_ANALYSIS');
  // The node runs again once its AI call is answered: the text read (download, OCR) is recorded and read back then.
  const read = await context.onceFor('document', async () => {
    const file = await downloadFile(context.outbound, fileUrl, MAX_FILE_BYTES, context.signal, context.httpTimeoutMs);
    const { text, kind } = await documentText(file);
    return { fileName: file.fileName, kind, text: text.slice(0, MAX_TEXT_CHARS) };
  });
  if (!read.text) throw new NodeError(`No text could be read from ${read.fileName} (${read.kind})`, 'UnreadableFile');
  const ask = text(input.data.prompt) || 'Summarize the document.';
  const { content } = await session.chat(model, {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `${ask}\n\nDocument (${read.fileName}, ${read.kind}):\n${read.text}` },
    ],
  });
  return { output: { analysis: parsedOrText(content), text: read.text.slice(0, 20_000) }, aiCredits: session.credits };
};

export const fileAnalysisNode: NodeModule = {
  type: 'FILE_ANALYSIS',
  remote: true,
  scopes: ['workflow'],
  summary: 'Reads a file from a URL (PDF text, OCR of images) and analyses it with an AI model; the output is { analysis, text }',
  data: {
    properties: {
      // SPEC.md lists no interpolable field for FILE_ANALYSIS: fileUrl and prompt are used as written.
      fileUrl: { type: ['string', 'null'], maxLength: 8192 },
      prompt: { type: ['string', 'null'], maxLength: 20000 },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  checks: [modelCheck('FILE_ANALYSIS')],
  execute: executeFileAnalysis,
};

/**
 * FILE_ANALYSIS: downloads `fileUrl` (at most 20 MB), reads its text locally (PDF text, OCR of images, plain text;
 * `integrations/ai/document-text.ts`) and has the node's FILE_ANALYSIS model answer `prompt` about it. The output is
 * `{ analysis, text }`: the model's answer (parsed when JSON) and the text it read (its first 20,000 characters).
 */
import { parsedOrText, text } from './support/ai-node-support.js';
import { askAi, lastReply, nodeModel } from './support/ai-steps.js';
import { documentText, MAX_DOCUMENT_BYTES } from '../integrations/ai/document-text.js';
import { downloadFile } from '../integrations/ai/download.js';
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type AiNodeSteps, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

export const MAX_FILE_BYTES = MAX_DOCUMENT_BYTES;
/** The document text sent to the model is cut here, to stay within usual context windows. */
const MAX_TEXT_CHARS = 100_000;
/** The document text the output holds (and `finish` gets back with the reply). */
const OUTPUT_TEXT_CHARS = 20_000;

const SYSTEM = 'You analyse a document for an automation. Answer what the user asks about the document text below, briefly.';

/** `prepare` downloads and reads the file and asks about it; `finish` reads the answer. */
const fileAnalysisSteps: AiNodeSteps<{ text: string }> = {
  async prepare(input, context) {
    const fileUrl = text(input.data.fileUrl).trim();
    if (!fileUrl) throw new NodeError('FILE_ANALYSIS needs a fileUrl');
    const model = await nodeModel(input, context, 'FILE_ANALYSIS');
    const file = await downloadFile(context.outbound, fileUrl, MAX_FILE_BYTES, context.signal, context.httpTimeoutMs);
    const read = await documentText(file);
    const documentTextRead = read.text.slice(0, MAX_TEXT_CHARS);
    if (!documentTextRead) throw new NodeError(`No text could be read from ${file.fileName} (${read.kind})`, 'UnreadableFile');
    const ask = text(input.data.prompt) || 'Summarize the document.';
    const messages = [
      { role: 'system' as const, content: SYSTEM },
      { role: 'user' as const, content: `${ask}\n\nDocument (${file.fileName}, ${read.kind}):\n${documentTextRead}` },
    ];
    return askAi(model, { kind: 'chat', messages }, { text: documentTextRead.slice(0, OUTPUT_TEXT_CHARS) });
  },
  async finish(_input, _context, replies, state) {
    return { output: { analysis: parsedOrText(lastReply(replies).content), text: state.text } };
  },
};

export const fileAnalysisNode: NodeModule = {
  type: 'FILE_ANALYSIS',
  remote: true,
  scopes: ['automation'],
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
  ai: fileAnalysisSteps,
};

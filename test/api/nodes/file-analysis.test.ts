import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { startFileServer, type FileServer } from '../../setup/file-server.js';
import { textPdf } from '../../setup/test-pdf.js';
import { textPng } from '../../setup/test-png.js';
import { draftWorkflow } from './node-runs.helpers.js';

describe('FILE_ANALYSIS nodes', function () {
  this.timeout(60_000);
  let files: FileServer;
  before(async () => {
    files = await startFileServer({
      '/docs/invoice.pdf': { type: 'application/pdf', bytes: textPdf('Invoice 1234 total 420 EUR') },
      '/docs/sign.png': { type: 'image/png', bytes: textPng('HELLO HELL') },
      '/docs/broken.pdf': { type: 'application/pdf', bytes: Buffer.from('%PDF-1.4 not really') },
      '/docs/song.mp3': { type: 'audio/mpeg', bytes: Buffer.from('ID3') },
    });
  });
  after(() => files.close());

  it('refuses to download a file from the cloud metadata address, failing the node at once', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
    const node = await wf.node('FILE_ANALYSIS', { fileUrl: 'http://169.254.169.254/latest/meta-data/doc.pdf' });
    harness().ai.script();
    const run = await wf.run(node);
    expect(run.successful, JSON.stringify(run)).to.equal(false);
    expect(run.error!.message).to.equal(
      'The call to http://169.254.169.254 was refused: 169.254.169.254, a cloud metadata address; the outbound address policy never calls link-local or cloud metadata addresses',
    );
    expect(harness().ai.chats, 'no AI call was made').to.have.length(0);
  });

  it('reads PDF text locally and has the FILE_ANALYSIS model answer the prompt about it', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
    const node = await wf.node('FILE_ANALYSIS', { fileUrl: `${files.origin}/docs/invoice.pdf`, prompt: 'What is the total? JSON please' });
    harness().ai.script({ content: '{"total":420,"currency":"EUR"}' });
    const run = await wf.run(node);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults[0].output).to.deep.equal({ analysis: { total: 420, currency: 'EUR' }, text: 'Invoice 1234 total 420 EUR' });
    expect(run.aiCredits).to.equal(5);
    const [request] = harness().ai.chats;
    expect(request.body.model).to.equal('gpt-4o');
    const ask = (request.body.messages as { content: string }[])[1].content;
    expect(ask).to.contain('What is the total? JSON please').and.to.contain('Invoice 1234 total 420 EUR');
  });

  it('reads images by offline OCR', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
    const node = await wf.node('FILE_ANALYSIS', { fileUrl: `${files.origin}/docs/sign.png`, prompt: 'What does the sign say?' });
    harness().ai.script({ content: 'It says hello.' });
    const run = await wf.run(node);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults[0].output).to.deep.include({ analysis: 'It says hello.', text: 'HELLO HELL' });
    expect((harness().ai.chats[0].body.messages as { content: string }[])[1].content).to.contain('HELLO HELL');
  });

  it('fails clearly on unreadable or unsupported files without calling the model', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
    const broken = await wf.node('FILE_ANALYSIS', { fileUrl: `${files.origin}/docs/broken.pdf` });
    const audio = await wf.node('FILE_ANALYSIS', { fileUrl: `${files.origin}/docs/song.mp3` });
    harness().ai.script();
    expect((await wf.run(broken)).error!.message).to.match(/^The PDF at broken.pdf could not be read/);
    expect((await wf.run(audio)).error!.message).to.equal('FILE_ANALYSIS reads PDF, images (PNG, JPEG, …) and text files, not audio/mpeg');
    expect(harness().ai.requests).to.have.length(0);
  });
});

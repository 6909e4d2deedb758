import { expect } from 'chai';
import { recordedActivities } from '../../setup/activity-history.js';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { startFileServer, type FileServer } from '../../setup/file-server.js';
import { draftWorkflow } from './node-runs.helpers.js';

describe('TRANSCRIPTION nodes', function () {
  this.timeout(60_000);
  let files: FileServer;
  const audio = Buffer.from('ID3 fake mp3 bytes of a voicemail');
  before(async () => {
    files = await startFileServer({ '/calls/voicemail.mp3': { type: 'audio/mpeg', bytes: audio } });
  });
  after(() => files.close());

  it('downloads the audio, sends it to the transcription endpoint on Whisper, and captures the transcript', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key, ['transcript']);
    const node = await wf.node('TRANSCRIPTION', { audioUrl: `${files.origin}/calls/{trigger_payload}`, captureVariables: [{ name: 'transcript' }] });
    harness().ai.script({ text: 'Hi, please call me back about my order.' });
    const run = await wf.run(node, 'voicemail.mp3');
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.variables.transcript).to.equal('Hi, please call me back about my order.');
    expect(run.nodeResults[0].aiCredits).to.equal(2);
    const [request] = harness().ai.requests;
    expect(request.path).to.equal('/v1/audio/transcriptions');
    expect(request.raw).to.contain('name="model"\r\n\r\nwhisper-1').and.to.contain('filename="voicemail.mp3"').and.to.contain(audio.toString());
    // The aiCall activity downloads the audio itself: its input in the history holds the URL, not the bytes.
    const aiCall = (await recordedActivities(run.logId)).find((a) => a.type === 'aiCall')!;
    expect(aiCall.input).to.deep.include({
      call: { kind: 'transcription', audioUrl: `${files.origin}/calls/voicemail.mp3`, maxBytes: 25 * 1024 * 1024 },
    });
  });

  it('refuses to download audio from a private address, failing the node at once and charging nothing', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
    const node = await wf.node('TRANSCRIPTION', { audioUrl: 'http://10.20.30.40/calls/voicemail.mp3' });
    const run = await wf.run(node);
    expect(run.successful, JSON.stringify(run)).to.equal(false);
    expect(run.error!.message).to.match(
      /^The call to http:\/\/10\.20\.30\.40 was refused: 10\.20\.30\.40, a private network address; .*OUTBOUND_ALLOW_PRIVATE/,
    );
    expect(run.nodeResults[0]!.aiCredits ?? 0).to.equal(0);
    const aiCall = (await recordedActivities(run.logId)).find((a) => a.type === 'aiCall')!;
    expect(aiCall.attempts, 'a refused download is not retried').to.equal(1);
  });

  it('extracts several capture variables from the transcript with the TEXT model', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key, ['name', 'order']);
    const node = await wf.node('TRANSCRIPTION', {
      audioUrl: `${files.origin}/calls/voicemail.mp3`,
      captureVariables: [{ name: 'name' }, { name: 'order' }],
    });
    harness().ai.script({ text: 'This is Ada about order 1234.' }, { content: '{"name":"Ada","order":"1234"}' });
    const run = await wf.run(node);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.variables).to.include({ name: 'Ada', order: '1234' });
    expect(run.aiCredits).to.equal(2 + 5);
    expect((harness().ai.chats[0].body.messages as { content: string }[])[1].content).to.equal('This is Ada about order 1234.');
  });

  it('refuses audio over 25 MB before reading it, and a missing file, without calling the model', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
    const huge = await wf.node('TRANSCRIPTION', { audioUrl: `${files.origin}/huge` });
    const missing = await wf.node('TRANSCRIPTION', { audioUrl: `${files.origin}/nothing.mp3` });
    harness().ai.script();
    const tooLarge = await wf.run(huge);
    expect(tooLarge.error!.message).to.match(/larger than 25 MB/);
    const notFound = await wf.run(missing);
    expect(notFound.error!.message).to.match(/answered 404/);
    expect(harness().ai.requests).to.have.length(0);
  });
});

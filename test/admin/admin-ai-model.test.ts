import { expect } from 'chai';
import { admin } from '../setup/admin-cli.js';
import { call, newAccount } from '../setup/http.js';

describe('admin command line: ai-model points catalog models at provider-side names', function () {
  this.timeout(60_000);

  it('sets externalId and the default of a type, shown by GET /ai-models, and refuses bad input', async () => {
    const { generalKey: key } = await newAccount();
    try {
      const res = await admin('ai-model', '--model=-6', '--external-id', 'llama3.1:8b', '--make-default', '--json');
      expect(res.code, res.stderr).to.equal(0);
      expect(JSON.parse(res.stdout).aiModel).to.include({ id: -6, externalId: 'llama3.1:8b', isDefault: true });
      const models = (await call('GET', '/ai-models?type=TEXT', { key })).body.agentry as { id: number; externalId: string; isDefault: boolean }[];
      expect(models.filter((m) => m.isDefault).map((m) => m.id)).to.deep.equal([-6]);
      expect(models.find((m) => m.id === -6)!.externalId).to.equal('llama3.1:8b');

      expect((await admin('ai-model', '--model=-6')).code).to.equal(2);
      expect((await admin('ai-model', '--model', 'gpt', '--external-id', 'x')).code).to.equal(2);
      const taken = await admin('ai-model', '--model=-6', '--external-id', 'claude-3-opus-20240229');
      expect(taken.code).to.not.equal(0);
      expect(taken.stderr).to.match(/already has externalId "claude-3-opus-20240229"/);
      expect((await admin('ai-model', '--model=-999', '--external-id', 'x')).stderr).to.match(/AI model -999 not found/);
    } finally {
      // The catalog is shared by every test: put it back.
      await admin('ai-model', '--model=-6', '--external-id', 'claude-3-7-sonnet-20250219');
      await admin('ai-model', '--model=-1', '--make-default');
    }
  });
});

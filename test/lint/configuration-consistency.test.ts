import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { CONFIG_VARIABLES } from '../../lib/config.js';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes.js';
import { projectRoot } from '../setup/harness.js';

/** temporal-docker-compose.yml and README.md cannot be run here; these checks keep them in step with the code. */
describe('deployment files agree with the code', () => {
  const compose = readFileSync(join(projectRoot, 'temporal-docker-compose.yml'), 'utf8');
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');

  it('compose registers exactly the search attributes the code defines', () => {
    const registered = [...compose.matchAll(/--name (Agentry[A-Za-z]+) --type (Int|Keyword)\b/g)].map((m) => `${m[1]}=${m[2]}`);
    const defined = SEARCH_ATTRIBUTES.map((k) => `${k.name}=${k.type === 'INT' ? 'Int' : 'Keyword'}`);
    expect(registered.sort()).to.deep.equal(defined.sort());
  });

  it('compose gives the API and the worker only variables that loadConfig reads', () => {
    const agentryEnv = compose.slice(compose.indexOf('x-agentry-env:'), compose.indexOf('\nservices:'));
    const apiBlock = compose.slice(compose.indexOf('\n  api:'), compose.indexOf('\n  worker:'));
    const names = [...`${agentryEnv}\n${apiBlock}`.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
    expect(names).to.include.members(['DATABASE_URL', 'TEMPORAL_ADDRESS', 'HOST', 'PORT']);
    for (const name of names) expect(CONFIG_VARIABLES, name).to.have.property(name);
  });

  it('README documents every configuration variable and the two commands', () => {
    for (const name of Object.keys(CONFIG_VARIABLES)) expect(readme, name).to.include(`\`${name}\``);
    expect(readme).to.include('npm start').and.include('npm test').and.include('/public/v1');
  });
});

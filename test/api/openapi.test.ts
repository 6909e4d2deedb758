import { expect } from 'chai';
import { MeResponseSchema } from '../../api/schemas/me.schema.js';
import { compileSchema } from '../../api/validation.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

describe('API description', () => {
  it('serves an OpenAPI 3.1 document without a key, built from the route schemas', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).to.equal(200);
    const doc = res.body;
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.version).to.equal('1.0.0');
    expect(doc.servers[0].url).to.match(/\/public\/v1$/);
    const me = doc.paths['/me'].get;
    expect(me['x-key-scope']).to.equal('any');
    expect(me.security).to.deep.equal([{ userApiKey: [] }, { accountApiKey: [] }]);
    expect(me.responses['200'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/MeResponse' });
    expect(me.responses['401'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Error' });
    const { $id: _id, ...meSchema } = MeResponseSchema;
    expect(doc.components.schemas.MeResponse).to.deep.equal(meSchema);
    expect(doc.components.securitySchemes).to.have.keys('userApiKey', 'accountApiKey');
  });

  it('describes what the API really answers: /me bodies validate against the documented schema', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const validate = compileSchema({ ...doc.components.schemas.MeResponse });
    const acct = await newAccount();
    for (const key of [acct.userKey, acct.generalKey]) {
      const body = (await call('GET', '/me', { key })).body;
      expect(validate(body), JSON.stringify(validate.errors)).to.equal(true);
    }
  });

  it('documents every route with resolvable references, including the query filter language', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const refs = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [key, v] of Object.entries(value)) {
          if (key === '$ref' && typeof v === 'string' && v.startsWith('#/components/')) refs.add(v);
          else walk(v);
        }
      }
    };
    walk(doc);
    for (const ref of refs) expect(doc.components.schemas[ref.split('/').pop()!], ref).to.be.an('object');
    expect(doc.paths['/objects/{name}/rows/list'].post.requestBody.content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/RowsListQuery',
    });
    expect(doc.components.schemas.RowsListQuery.properties.filter).to.deep.equal({ $ref: '#/components/schemas/QueryFilter' });
    expect(doc.components.schemas.QueryFilter.description).to.match(/and/);
    expect(doc.paths['/tables/{name}/fields/{fieldId}/tags'].post['x-key-scope']).to.equal('U');
    expect(doc.paths['/objects/{name}/fields/{fieldId}/options'].get['x-key-scope']).to.equal('any');
  });

  it('serves a human-readable reference at /docs', async () => {
    const res = await fetch(`${harness().origin}/docs`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    expect(html).to.include('<code>/me</code>');
    expect(html).to.include('key: any');
    expect(html).to.include('/public/v1/openapi.json');
  });
});

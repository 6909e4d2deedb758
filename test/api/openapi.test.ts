import { expect } from 'chai';
import { MeResponseSchema } from '../../api/schemas/me.schema.js';
import { contractViolations } from '../setup/contract.js';
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
    expect(me.security).to.deep.equal([{ userApiKey: [] }, { accountApiKey: [] }, { session: [] }]);
    expect(me.responses['200'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/MeResponse' });
    expect(me.responses['401'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Error' });
    const { $id: _id, ...meSchema } = MeResponseSchema;
    expect(doc.components.schemas.MeResponse).to.deep.equal(meSchema);
    expect(doc.components.securitySchemes).to.have.keys('userApiKey', 'accountApiKey', 'session');
    expect(doc.components.securitySchemes.session).to.include({ type: 'apiKey', in: 'cookie', name: 'agentry_session' });
    expect(doc.paths['/sessions'].post.security).to.deep.equal([]);
  });

  it('documents a success body for every operation, examples included', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const undocumented: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (method === 'servers') continue;
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (/^2/.test(status) && status !== '204' && !response.content) undocumented.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(undocumented).to.deep.equal([]);
    expect(doc.components.schemas.Row.example.data).to.be.an('object');
    expect(doc.paths['/workflows'].get.responses['200'].content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/WorkflowPage',
    });
    expect(doc.components.schemas.WorkflowPage.properties.agentry.items).to.deep.equal({ $ref: '#/components/schemas/WorkflowListItem' });
    expect(doc.paths['/me'].get.responses.default.content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/Error' });
  });

  it('refuses, through the response contract, an answer outside its documented shape', async () => {
    const me = `${harness().baseUrl}/me`;
    const json = 'application/json; charset=utf-8';
    const good = (await call('GET', '/me', { key: (await newAccount()).userKey })).body;
    expect(contractViolations('GET', me, 200, json, good, JSON.stringify(good))).to.deep.equal([]);
    expect(contractViolations('GET', me, 200, json, { ...good, extra: 1 }, '{}')[0]).to.match(
      /GET \/me → 200: body must NOT have additional properties/,
    );
    expect(contractViolations('GET', me, 201, json, good, '{}')[0]).to.match(/status 201 is not documented/);
    expect(contractViolations('GET', me, 200, 'text/html', good, '<p>')[0]).to.match(/content type "text\/html" is not documented/);
    expect(contractViolations('GET', me, 404, json, { message: 'no code' }, '{}')[0]).to.match(
      /GET \/me → 404: body must have required property 'code'/,
    );
    expect(contractViolations('GET', `${harness().baseUrl}/not-documented`, 200, json, {}, '{}')).to.deep.equal([]);
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
    // A JSON pointer into the document: components, and a component's own $defs (QueryFilter's).
    const resolve = (ref: string) =>
      ref
        .slice(2)
        .split('/')
        .reduce((node: any, part: string) => node?.[part], doc);
    for (const ref of refs) expect(resolve(ref), ref).to.be.an('object');
    expect(refs).to.include('#/components/schemas/QueryFilter/$defs/Filter');
    expect(doc.paths['/objects/{name}/rows/list'].post.requestBody.content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/RowsListQuery',
    });
    expect(doc.components.schemas.RowsListQuery.properties.filter).to.deep.equal({ $ref: '#/components/schemas/QueryFilter' });
    expect(doc.components.schemas.QueryFilter.description).to.match(/and/);
    expect(doc.paths['/tables/{name}/fields/{fieldId}/tags'].post['x-key-scope']).to.equal('U');
    expect(doc.paths['/objects/{name}/fields/{fieldId}/options'].get['x-key-scope']).to.equal('any');
  });

  it('serves the API reference at /docs from this server only', async () => {
    const { origin } = harness();
    const res = await fetch(`${origin}/docs`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const sources = [...(await res.text()).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).to.have.length.greaterThan(2);
    for (const source of sources) {
      expect(source).to.match(/^\/docs\/assets\//);
      expect((await fetch(`${origin}${source}`)).status, source).to.equal(200);
    }
    const init = await (await fetch(`${origin}/docs/assets/init.js`)).text();
    expect(init).to.include('"/public/v1/openapi.json"').and.include('validatorUrl: null').and.include('showExtensions: true');
    expect((await fetch(`${origin}/docs/assets/package.json`)).status).to.equal(404);
  });
});

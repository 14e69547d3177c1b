// The committed OpenAPI document (api/openapi.json) as a validator of real
// answers: the document dereferenced by @apidevtools/swagger-parser and
// each schema compiled once by ajv (JSON Schema 2020-12). Used by
// tests/integration/openapi.test.mjs (every operation) and by tests whose
// daemon makes what only they can (smb.test.mjs: a run with a wire
// baseline). Loading takes ~0.3 s.
//
//   const oa = await openapiValidator();
//   oa.validate(oa.schema('Run'), run, 'GET /api/v1/runs/3');
//   oa.validateAnswer('get /api/v1/jobs/{id}', 200, job, 'GET /api/v1/jobs/2');
//
// The npm packages come from tests/browser/node_modules (pinned in
// tests/browser/package.json; scripts/bootstrap --test installs them).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Loads api/openapi.json and returns { doc, docText, deref, validate,
 * schema, validateAnswer, SwaggerParser }: validate(schema, value, what)
 * fails an assertion naming what and ajv's first errors when value does
 * not match schema (a schema of deref); schema(name) is
 * deref.components.schemas[name]; validateAnswer(key, status, json, what)
 * checks a JSON answer of the documented operation key ("get
 * /api/v1/runs/{id}") with that status.
 */
export async function openapiValidator() {
  const docText = fs.readFileSync(path.join(repo, 'api', 'openapi.json'), 'utf8');
  const doc = JSON.parse(docText);
  const req = createRequire(path.join(repo, 'tests', 'browser', 'package.json'));
  let SwaggerParser, Ajv2020;
  try {
    SwaggerParser = (await import(pathToFileURL(req.resolve('@apidevtools/swagger-parser')))).default;
    Ajv2020 = (await import(pathToFileURL(req.resolve('ajv/dist/2020')))).default;
  } catch (e) {
    throw new Error(`the npm packages of tests/browser are missing (${e.message}): ` +
      'run scripts/bootstrap --test, or npm ci in tests/browser');
  }
  // FieldDescriptor refers to itself (a list's item, an object's fields):
  // such $refs stay as they are, and ajv finds them in the components given
  // beside each schema it compiles
  const deref = await SwaggerParser.dereference(structuredClone(doc), { dereference: { circular: 'ignore' } });
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const compiled = new WeakMap();
  const validate = (schema, value, what) => {
    if (!compiled.has(schema)) compiled.set(schema, ajv.compile({ ...schema, components: deref.components }));
    const v = compiled.get(schema);
    assert.ok(v(value), `${what}: the body does not match the documented schema: ` +
      `${JSON.stringify(v.errors?.slice(0, 6), null, 1)}\nbody: ${JSON.stringify(value).slice(0, 1500)}`);
  };
  const schema = (name) => {
    assert.ok(deref.components.schemas[name], `components.schemas.${name} is not in the document`);
    return deref.components.schemas[name];
  };
  const validateAnswer = (key, status, json, what) => {
    const [method, p] = key.split(' ');
    const media = deref.paths[p]?.[method]?.responses?.[String(status)]?.content?.['application/json'];
    assert.ok(media?.schema, `${key}: no documented JSON answer with status ${status}`);
    validate(media.schema, json, what);
  };
  return { doc, docText, deref, validate, schema, validateAnswer, SwaggerParser };
}

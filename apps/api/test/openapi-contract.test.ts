// The published document against the contract (contract/plant-store.openapi.yaml at the root): the
// service may add to the contract, never narrow it. Instances are generated from each schema with
// fast-check, then validated against the other document's schema with a JSON Schema 2020-12 validator.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INT64_MAX, INT64_MIN, parseNewPlant, stringifyExactJson } from '@plant-store/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildOpenApiDocument } from '../src/openapi/openapi-document.ts';
import { componentSchemaValidator } from './support/component-schemas.ts';
import { parseJsonWithBigInts } from './support/exact-json.ts';
import { arbitraryOf, asParsedJson } from './support/json-schema-arbitrary.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, read by path in the assertions.
type JsonObject = Record<string, any>;

const CONTRACT_PATH = join(import.meta.dirname, '../../../contract/plant-store.openapi.yaml');
const contract = parseYaml(readFileSync(CONTRACT_PATH, 'utf8'), { intAsBigInt: true }) as JsonObject;
// The published document with its int64 bounds exact, as bigints.
const published = parseJsonWithBigInts(stringifyExactJson(buildOpenApiDocument())) as JsonObject;
// What the validator reads: JSON.parse's doubles, as any JSON Schema tool would.
const contractValidator = componentSchemaValidator(
  asParsedJson(contract) as JsonObject,
  'https://contract.invalid/',
);
const publishedValidator = componentSchemaValidator(
  JSON.parse(stringifyExactJson(buildOpenApiDocument())),
  'https://published.invalid/',
);

const RUNS = 300;
const mediaSchema = (document: JsonObject, status?: string) => {
  const operation = document.paths['/plants'].post;
  const holder = status === undefined ? operation.requestBody : operation.responses[status];
  return holder.content['application/json'].schema;
};

/** Whether a validator accepts an instance; the errors, for the failure message, when it does not. */
function accepts(validator: typeof contractValidator, schema: unknown, instance: unknown): true | string {
  const validate = validator(schema);
  return validate(asParsedJson(instance)) ? true : JSON.stringify(validate.errors);
}

describe('the published document and the contract', () => {
  it('when both are read, then the contract is valid too, and its operation is the published one', () => {
    expect(contract.openapi).toBe('3.1.0');
    expect(published.paths['/plants'].post.operationId).toBe(contract.paths['/plants'].post.operationId);
    expect(published.info.version).toBe(contract.info.version);
    expect(published.info.license).toEqual(contract.info.license);
    expect(published.security).toEqual(contract.security);
    expect(published.components.securitySchemes.bearerAuth).toMatchObject(
      contract.components.securitySchemes.bearerAuth,
    );
  });

  it('when the contract gives the request body and the 200 and 400 answers, then the published operation gives each, as application/json', () => {
    const operation = published.paths['/plants'].post;
    expect(operation.requestBody.required).toBe(contract.paths['/plants'].post.requestBody.required);
    for (const status of Object.keys(contract.paths['/plants'].post.responses))
      expect(Object.keys(operation.responses[status].content)).toEqual(['application/json']);
  });

  it.each([
    ['the request body (NewPlant)', undefined],
    ['the 200 answer (Plant)', '200'],
    ['the 400 answer (Error)', '400'],
  ])(
    'when an instance of %s in the contract is generated, then the published schema accepts it',
    (_label, status) => {
      const contractSchema = mediaSchema(contract, status);
      const publishedSchema = mediaSchema(published, status);
      fc.assert(
        fc.property(arbitraryOf(contractSchema, contract), (instance) => {
          // The generator makes only what the contract accepts...
          expect(accepts(contractValidator, contractSchema, instance)).toBe(true);
          // ...and the published schema accepts all of it.
          expect(accepts(publishedValidator, publishedSchema, instance)).toBe(true);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it.each([
    ['the 200 answer (Plant)', '200'],
    ['the 400 answer (Error)', '400'],
  ])(
    'when an instance of %s in the published document is generated, then the contract accepts it: its shape is kept',
    (_label, status) => {
      const contractSchema = mediaSchema(contract, status);
      const publishedSchema = mediaSchema(published, status);
      fc.assert(
        fc.property(arbitraryOf(publishedSchema, published), (instance) => {
          expect(accepts(publishedValidator, publishedSchema, instance)).toBe(true);
          expect(accepts(contractValidator, contractSchema, instance)).toBe(true);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it("when ids are compared exactly, then the published range is all of int64, which the contract's format names", () => {
    const id = published.components.schemas.NewPlant.properties.id;
    expect(id.minimum).toBe(INT64_MIN);
    expect(id.maximum).toBe(INT64_MAX);
    expect(id.minimum).toBe(-(2n ** 63n));
    expect(id.maximum).toBe(2n ** 63n - 1n);
    expect(contract.components.schemas.NewPlant.allOf[1].properties.id.format).toBe('int64');
  });

  it("when a contract NewPlant has no NUL and no lone surrogate, then the service's own rules accept it too, id exact", () => {
    const clean = (text: string) => text.replaceAll('\u0000', '').toWellFormed();
    fc.assert(
      fc.property(arbitraryOf(mediaSchema(contract), contract), (generated) => {
        const instance = generated as { id: bigint; name: string; tag?: string } & JsonObject;
        const input = {
          ...instance,
          name: clean(instance.name),
          ...(instance.tag === undefined ? {} : { tag: clean(instance.tag) }),
        };
        const plant = parseNewPlant(input);
        expect(plant.id).toBe(instance.id);
        expect(plant.name).toBe(input.name);
      }),
      { numRuns: RUNS },
    );
  });
});

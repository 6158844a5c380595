import { INT64_MAX, INT64_MIN, PlantIdSchema } from '@plant-store/domain';
import { describe, expect, it } from 'vitest';
import { toComponentSchema } from '../src/openapi/published-schemas.ts';
import { PlantIdTextSchema } from '../src/operations/parameters.ts';

const INT64 = { type: 'integer', format: 'int64', minimum: INT64_MIN, maximum: INT64_MAX };

describe('the conversion of the domain schemas for the published document', () => {
  it('when the id schema is converted, then it is one JSON integer with the exact int64 bounds', () => {
    expect(toComponentSchema(PlantIdSchema)).toStrictEqual(INT64);
  });

  it('when the id as text (the {id} and `after` of the read routes) is converted, then it is the same int64 integer', () => {
    expect(toComponentSchema(PlantIdTextSchema)).toStrictEqual(INT64);
  });
});

import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from './schema.js';

describe('schemas/config.schema.json', () => {
  const committed = JSON.parse(readFileSync('schemas/config.schema.json', 'utf8')) as Record<string, unknown>;

  it('is the JSON Schema generated from the zod config schema (regenerate: see docs/config.md)', () => {
    expect(committed).toEqual(configJsonSchema());
  });

  it('accepts the example config and rejects a typo', () => {
    const validate = new Ajv2020({ strict: false }).compile(committed);
    const example = parse(readFileSync('examples/contractions.yaml', 'utf8')) as Record<string, unknown>;
    expect(validate(example)).toBe(true);
    const { samples, ...rest } = example;
    expect(validate({ ...rest, sample: samples })).toBe(false);
  });
});

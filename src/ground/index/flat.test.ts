import { expect, it } from 'vitest';
import { vectorIndexContract } from './contract.case.js';
import { FlatIPIndex } from './flat.js';

vectorIndexContract('FlatIPIndex', (v, d) => new FlatIPIndex(v, d));

it('rejects data whose length is not a multiple of the dimension', () => {
  expect(() => new FlatIPIndex(new Float32Array(7), 3)).toThrow(/multiple/);
});

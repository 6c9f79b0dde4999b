import { describe, expect, it } from 'vitest';
import { buildProgram } from './main.js';

/** Start-up: the CLI registers (and so imports) only the command it runs. */
describe('lazy command loading', () => {
  it('--version loads no command; a command loads itself only; help and unknown commands load all', async () => {
    expect((await buildProgram(['--version'])).commands).toHaveLength(0);
    expect((await buildProgram(['-V'])).commands).toHaveLength(0);
    expect((await buildProgram(['run', 'x.yaml', '--json', 'r.json'])).commands.map((c) => c.name())).toEqual(['run']);
    expect((await buildProgram(['runs', '--store', 'x'])).commands.map((c) => c.name())).toEqual(['runs']);
    const all = (await buildProgram(['--help'])).commands.map((c) => c.name());
    expect(all).toEqual(expect.arrayContaining(['run', 'runs', 'show', 'mock', 'cache', 'spade', 'serve']));
    expect((await buildProgram([])).commands.length).toBe(all.length);
    expect((await buildProgram(['rnu'])).commands.length).toBe(all.length);
  });
});

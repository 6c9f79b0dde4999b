import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { diffVersions, formatDelta, initialDelta, promptDeltas, splitSentences } from './deltas.js';
import { gitVersions, parseVersions, readVersionsFile } from './versions.js';

describe('splitSentences', () => {
  it('splits lines and sentences, keeps bullets, drops decorative rules', () => {
    expect(splitSentences('You are a bot. Be brief!\n\n- Use JSON\n-----\nSay "hi". 3 items max.')).toEqual([
      'You are a bot.',
      'Be brief!',
      '- Use JSON',
      'Say "hi".',
      '3 items max.',
    ]);
  });
  it('does not split inside e.g. or decimals', () => {
    expect(splitSentences('Use units, e.g. km. Round to 2.5 decimals.')).toEqual(['Use units, e.g. km.', 'Round to 2.5 decimals.']);
  });
});

describe('splitSentences in other scripts', () => {
  it('splits before capitals of any script, after closing quotes, and after CJK full stops', () => {
    expect(splitSentences('Résume le texte. Élimine les prix.')).toEqual(['Résume le texte.', 'Élimine les prix.']);
    expect(splitSentences('Кратко изложи. Не упоминай цены.')).toEqual(['Кратко изложи.', 'Не упоминай цены.']);
    expect(splitSentences('要約してください。価格に触れないでください。')).toEqual(['要約してください。', '価格に触れないでください。']);
    expect(splitSentences('Say "Hi." Then stop.')).toEqual(['Say "Hi."', 'Then stop.']);
    expect(diffVersions('Résume le texte.', 'Résume le texte. Élimine les prix.').added).toEqual(['Élimine les prix.']);
  });
});

describe('prompt deltas', () => {
  const v = (id: string, text: string) => ({ id, text });
  it('an added sentence is +, a removed one −, a changed one − and +', () => {
    const d = diffVersions('Summarize the text. Be polite.', 'Summarize the text. Be concise. Use at most 3 bullets.');
    expect(d.added).toEqual(['Be concise.', 'Use at most 3 bullets.']);
    expect(d.deleted).toEqual(['Be polite.']);
    expect(d.moved).toEqual([]);
  });
  it('identical consecutive versions give an empty delta', () => {
    const ds = promptDeltas([v('a', 'One. Two.'), v('b', 'One. Two.'), v('c', 'One.  Two.\n')], { initial: false });
    expect(ds).toHaveLength(2);
    for (const d of ds) expect([d.added, d.deleted, d.moved]).toEqual([[], [], []]);
    expect(formatDelta(ds[0])).toMatch(/no change/);
  });
  it('reordered sentences are neither added nor deleted, only reported as moved', () => {
    const d = diffVersions('Be brief. Use JSON. Cite sources.', 'Cite sources. Be brief. Use JSON.');
    expect(d.added).toEqual([]);
    expect(d.deleted).toEqual([]);
    expect(d.moved).toEqual(['Cite sources.']);
  });
  it('a duplicated sentence is one addition', () => {
    const d = diffVersions('Be brief.', 'Be brief. Be brief.');
    expect(d.added).toEqual(['Be brief.']);
  });
  it('numbers deltas and labels them by version id; the initial delta (from the empty version 0) adds everything', () => {
    const ds = promptDeltas([v('v1', 'A.'), v('v2', 'A. B.'), v('v3', 'B. C.')]);
    expect(ds.map((d) => [d.index, d.from, d.to, d.added, d.deleted])).toEqual([
      [0, '(empty)', 'v1', ['A.'], []],
      [1, 'v1', 'v2', ['B.'], []],
      [2, 'v2', 'v3', ['C.'], ['A.']],
    ]);
    expect(promptDeltas([v('v1', 'A.'), v('v2', 'A. B.')], { initial: false }).map((d) => d.index)).toEqual([1]);
    expect(initialDelta(v('v1', 'A. B.')).added).toEqual(['A.', 'B.']);
  });
  it("a single version gives one delta: the whole prompt is added (the paper's P0 is empty)", () => {
    const ds = promptDeltas([v('only', 'Summarise the call. Use at most 3 bullets.')]);
    expect(ds).toHaveLength(1);
    expect(ds[0].added).toEqual(['Summarise the call.', 'Use at most 3 bullets.']);
    expect(promptDeltas([])).toEqual([]);
  });
});

describe('loading versions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spade-versions-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts lists of strings, objects, {versions} and benchmark files', () => {
    expect(parseVersions(['a', 'b'], 'f').map((x) => x.id)).toEqual(['v0', 'v1']);
    expect(parseVersions({ versions: [{ id: 'x', text: 'T' }] }, 'f')).toEqual([{ id: 'x', text: 'T' }]);
    expect(parseVersions({ prompt_versions: ['p'] }, 'f')[0].text).toBe('p');
  });
  it('names the file and the bad entry', () => {
    expect(() => parseVersions({ versions: ['ok', 3] }, 'h.json')).toThrow(/h\.json: versions\[1\] must be a string/);
    expect(() => parseVersions({ nope: 1 }, 'h.json')).toThrow(UsageError);
  });
  it('reads YAML files', async () => {
    const f = join(dir, 'h.yaml');
    writeFileSync(f, 'versions:\n  - id: one\n    text: First.\n  - Second.\n');
    expect(await readVersionsFile(f)).toEqual([
      { id: 'one', text: 'First.' },
      { id: 'v1', text: 'Second.' },
    ]);
  });
  it('reads the git history of a prompt file, oldest first, across a rename', async () => {
    const repo = join(dir, 'repo');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'pipe' });
    execFileSync('mkdir', ['-p', repo]);
    git('init', '-q');
    writeFileSync(join(repo, 'old.txt'), 'Be brief.\n');
    git('add', '.');
    git('commit', '-qm', 'v1');
    writeFileSync(join(repo, 'old.txt'), 'Be brief. Use JSON.\n');
    git('commit', '-qam', 'v2');
    renameSync(join(repo, 'old.txt'), join(repo, 'prompt.txt'));
    git('add', '-A');
    git('commit', '-qm', 'rename');
    writeFileSync(join(repo, 'prompt.txt'), 'Use JSON. Cite sources.\n');
    git('commit', '-qam', 'v3');
    const versions = await gitVersions(join(repo, 'prompt.txt'));
    expect(versions.map((x) => x.text.trim())).toEqual(['Be brief.', 'Be brief. Use JSON.', 'Be brief. Use JSON.', 'Use JSON. Cite sources.']);
    const ds = promptDeltas(versions, { initial: false });
    expect(ds[1].added).toEqual([]);
    expect(ds[2]).toMatchObject({ added: ['Cite sources.'], deleted: ['Be brief.'] });
  });
  it('reads a prompt file whose path git would quote (non-ASCII, spaces), across a rename', async () => {
    const repo = join(dir, 'repo-ü');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'pipe' });
    execFileSync('mkdir', ['-p', join(repo, 'prompts')]);
    git('init', '-q');
    writeFileSync(join(repo, 'prompts', 'résumé v1.txt'), 'Résume.\n');
    git('add', '.');
    git('commit', '-qm', 'v1');
    renameSync(join(repo, 'prompts', 'résumé v1.txt'), join(repo, 'prompts', 'système "final".txt'));
    git('add', '-A');
    git('commit', '-qm', 'rename');
    writeFileSync(join(repo, 'prompts', 'système "final".txt'), 'Résume. Sois bref.\n');
    git('commit', '-qam', 'v2');
    const versions = await gitVersions(join(repo, 'prompts', 'système "final".txt'));
    expect(versions.map((x) => x.text.trim())).toEqual(['Résume.', 'Résume.', 'Résume. Sois bref.']);
  });
  it('says when the directory does not exist', async () => {
    await expect(gitVersions(join(dir, 'nowhere', 'p.txt'))).rejects.toThrow(/no such directory/);
  });
  it('refuses a file outside a repository', async () => {
    const f = join(dir, 'loose.txt');
    writeFileSync(f, 'x');
    await expect(gitVersions(f)).rejects.toThrow(/git repository/);
  });
});

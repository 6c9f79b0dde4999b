import { mkdtemp, readFile, readdir, rm, unlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { createLexicalEmbedder } from '../embedders/lexical.js';
import { ingest } from './ingest.js';
import { knowledgeBaseFromTexts } from './kb.js';
import { openKnowledgeBase, readManifest, saveKnowledgeBase, writeCalibration } from './kb-store.js';
import { createGroundingEngine } from '../service.js';
import { minimalPdf } from './testing/pdf.js';

let root = '';
let corpus = '';
const lexical = () => createLexicalEmbedder({ dimension: 128 });
/** The file holding a logical KB file (its name carries the generation tag). */
const fileOf = async (kbDir: string, name: string) => join(kbDir, (await readManifest(kbDir)).files[name].name ?? name);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assay-kb-'));
  corpus = join(root, 'corpus');
  await mkdir(join(corpus, 'sub'), { recursive: true });
  await writeFile(join(corpus, 'tower.txt'), 'The Eiffel Tower was completed in 1889. It is 330 metres tall.\n');
  await writeFile(join(corpus, 'plants.md'), '# Plants\n\nPhotosynthesis converts light energy into chemical energy.\n\n- Chlorophyll absorbs blue light.\n');
  await writeFile(
    join(corpus, 'sub', 'river.html'),
    '<html><head><script>var x = "The Nile is short";</script></head><body><p>The Nile flows north into the Mediterranean Sea.</p></body></html>',
  );
  await writeFile(join(corpus, 'sub', 'bridge.pdf'), minimalPdf(['The Golden Gate Bridge opened in 1937.', 'It connects San Francisco and Marin County.']));
  await writeFile(join(corpus, 'notes.docx'), 'ignored in directories');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('ingest → analyze end to end (txt, md, html, pdf)', () => {
  it('ingests a directory, persists the KB and audits answers against it', async () => {
    const kbDir = join(root, 'kb');
    const s = await ingest(kbDir, [corpus], { embedder: lexical(), cwd: root });
    expect(s.added).toEqual(['corpus/plants.md', 'corpus/sub/bridge.pdf', 'corpus/sub/river.html', 'corpus/tower.txt']);
    expect(s.documents).toBe(4);
    expect(s.chunks).toBe(4);
    const engine = await createGroundingEngine({ kbDir });
    const r = await engine.analyze({
      query: 'facts',
      answer: 'The Golden Gate Bridge opened in 1937. The Nile flows north into the Mediterranean Sea. Chlorophyll absorbs blue light.',
    });
    expect(r.claims_analysis.map((c) => c.evidence?.source)).toEqual(['corpus/sub/bridge.pdf', 'corpus/sub/river.html', 'corpus/plants.md']);
    expect(r.claims_analysis.every((c) => c.status === 'STRONG')).toBe(true);
    expect(r.hallucination_risk).toBe('LOW');
    // the script's text never reached the KB
    expect(engine.kb.documents.find((d) => d.source.endsWith('river.html'))?.text).not.toContain('short');
    const wrong = await engine.analyze({ query: 'q', answer: 'The Golden Gate Bridge opened in 1947.' });
    expect(wrong.claims_analysis[0].status).toBe('CONTRADICTED');
    expect(wrong.claims_analysis[0].contradicted_details).toEqual([{ claim: '1947', evidence: '1937' }]);
    expect(wrong.hallucination_risk).not.toBe('LOW');
  });

  it('re-ingesting skips unchanged files and re-processes a changed one', async () => {
    const kbDir = join(root, 'kb2');
    await ingest(kbDir, [corpus], { embedder: lexical(), cwd: root });
    const again = await ingest(kbDir, [corpus], { embedder: lexical(), cwd: root });
    expect(again.added).toEqual([]);
    expect(again.updated).toEqual([]);
    expect(again.unchanged.length).toBe(4);
    await writeFile(join(corpus, 'tower.txt'), 'The Eiffel Tower was completed in 1889. It is 330 metres tall. It has three levels.\n');
    const third = await ingest(kbDir, [join(corpus, 'tower.txt')], { embedder: lexical(), cwd: root });
    expect(third.updated).toEqual(['corpus/tower.txt']);
    expect(third.documents).toBe(4);
    const { kb } = await openKnowledgeBase(kbDir, { embedder: lexical() });
    expect(kb.documents.find((d) => d.source === 'corpus/tower.txt')?.text).toContain('three levels');
  });

  it('recognises unchanged files when re-ingesting from another working directory', async () => {
    const kbDir = join(root, 'kb-cwd');
    await ingest(kbDir, [corpus], { embedder: lexical(), cwd: root });
    const again = await ingest(kbDir, [corpus], { embedder: lexical(), cwd: corpus });
    expect(again.added).toEqual([]);
    expect(again.unchanged).toEqual(['corpus/plants.md', 'corpus/sub/bridge.pdf', 'corpus/sub/river.html', 'corpus/tower.txt']);
    expect(again.documents).toBe(4);
    // a changed file keeps its label (and so its chunk ids); a new file with a label already taken gets its path from the KB
    await writeFile(join(corpus, 'tower.txt'), 'The Eiffel Tower was completed in 1889. It is 330 metres tall. It has five lifts.\n');
    await mkdir(join(corpus, 'corpus'), { recursive: true });
    await writeFile(join(corpus, 'corpus', 'tower.txt'), 'A different tower stands in Blackpool.\n');
    const third = await ingest(kbDir, [corpus], { embedder: lexical(), cwd: corpus });
    await rm(join(corpus, 'corpus'), { recursive: true });
    expect(third.updated).toEqual(['corpus/tower.txt']);
    expect(third.added).toEqual(['../corpus/corpus/tower.txt']);
    const { kb } = await openKnowledgeBase(kbDir, { embedder: lexical() });
    expect(new Set(kb.chunks.map((c) => c.id)).size).toBe(kb.chunks.length);
  });

  it('leaves the previous KB intact when a save is interrupted, and clears the leftovers on the next ingest', async () => {
    const kbDir = join(root, 'kb-interrupted');
    await ingest(kbDir, [join(corpus, 'plants.md')], { embedder: lexical(), cwd: root });
    const before = await readdir(kbDir);
    // An embedder whose spec() throws: save writes the new generation's data files, then fails before the manifest.
    const dying = Object.assign(Object.create(lexical()), {
      spec: () => {
        throw new Error('killed');
      },
    });
    const other = await knowledgeBaseFromTexts([{ source: 'x.txt', text: 'Something else entirely.' }], dying, { fit: false });
    await expect(saveKnowledgeBase(other, kbDir)).rejects.toThrow('killed');
    expect((await readdir(kbDir)).length).toBeGreaterThan(before.length);
    const { kb } = await openKnowledgeBase(kbDir, { embedder: lexical() });
    expect(kb.documents.map((d) => d.source)).toEqual(['corpus/plants.md']);
    await ingest(kbDir, [join(corpus, 'tower.txt')], { embedder: lexical(), cwd: root });
    const names = await readdir(kbDir);
    expect(names.sort()).toEqual(['manifest.json', ...Object.values((await readManifest(kbDir)).files).map((f) => f.name as string)].sort());
  });
});

describe('KB integrity', () => {
  const fresh = async (name: string) => {
    const kbDir = join(root, name);
    await ingest(kbDir, [join(corpus, 'plants.md')], { embedder: lexical(), cwd: root });
    return kbDir;
  };

  it('detects a corrupted vector file', async () => {
    const kbDir = await fresh('kb-corrupt');
    const file = await fileOf(kbDir, 'windows.f32');
    const buf = await readFile(file);
    buf[5] ^= 0xff;
    await writeFile(file, buf);
    await expect(openKnowledgeBase(kbDir, { embedder: lexical() })).rejects.toThrow(/corrupt or partial: windows-\w+\.f32 checksum does not match/);
  });

  it('detects a truncated file, a missing manifest and a tampered manifest', async () => {
    const a = await fresh('kb-trunc');
    for (const name of ['meta.json', 'windows.f32', 'chunks.f32', 'embedder.bin']) {
      const file = await fileOf(a, name);
      const buf = await readFile(file);
      await writeFile(file, buf.subarray(0, buf.length >> 1));
      await expect(openKnowledgeBase(a, { embedder: lexical() }), name).rejects.toThrow(/corrupt or partial: \w+-\w+\.\w+ has \d+ bytes, the manifest says/);
      await writeFile(file, buf);
    }
    const manifest = await readFile(join(a, 'manifest.json'));
    await writeFile(join(a, 'manifest.json'), manifest.subarray(0, manifest.length >> 1));
    await expect(openKnowledgeBase(a, { embedder: lexical() })).rejects.toThrow(/corrupt or partial: manifest\.json is not valid JSON/);
    const b = await fresh('kb-nomanifest');
    await unlink(join(b, 'manifest.json'));
    await expect(openKnowledgeBase(b, { embedder: lexical() })).rejects.toThrow(/manifest\.json is missing \(an ingest was interrupted\)/);
    const c = await fresh('kb-tampered');
    const m = JSON.parse(await readFile(join(c, 'manifest.json'), 'utf8'));
    m.counts.chunks = 99;
    await writeFile(join(c, 'manifest.json'), JSON.stringify(m));
    await expect(openKnowledgeBase(c, { embedder: lexical() })).rejects.toThrow(/manifest\.json checksum/);
    await expect(openKnowledgeBase(join(root, 'nothing-here'))).rejects.toThrow(/no knowledge base at .*does not exist/);
  });

  it('refuses to query with another embedder than the one that built it', async () => {
    const kbDir = await fresh('kb-embedder');
    const err = await openKnowledgeBase(kbDir, { embedder: createLexicalEmbedder({ dimension: 64 }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/built with embedder lexical:v1:d128 .* queried with lexical:v1:d64/);
    await expect(ingest(kbDir, [join(corpus, 'tower.txt')], { embedder: createLexicalEmbedder({ dimension: 64 }), cwd: root })).rejects.toThrow(/built with/);
  });

  it('applies stored calibration thresholds and checks them', async () => {
    const kbDir = await fresh('kb-calib');
    await writeCalibration(kbDir, { embedder: 'lexical:v1:d128', thresholds: { strong: 0.9, weak: 0.42 }, balanced_accuracy: 0.7, n: 10, fitted: 'now' });
    const engine = await createGroundingEngine({ kbDir });
    const r = await engine.analyze({ query: 'q', answer: 'Chlorophyll absorbs blue light.' });
    expect(r.thresholds).toEqual({ strong: 0.9, weak: 0.42 });
    await writeFile(join(kbDir, 'calibration.json'), JSON.stringify({ embedder: 'other', thresholds: { strong: 0.9, weak: 0.42 } }));
    await expect(openKnowledgeBase(kbDir, { embedder: lexical() })).rejects.toThrow(/calibration\.json field "embedder"/);
  });

  it('says so when --kb names a file instead of a directory', async () => {
    const file = join(corpus, 'tower.txt');
    await expect(openKnowledgeBase(file, { embedder: lexical() })).rejects.toThrow(/no knowledge base at .*tower\.txt: it is a file/);
    await expect(ingest(file, [join(corpus, 'plants.md')], { embedder: lexical(), cwd: root })).rejects.toThrow(
      /expected a knowledge base directory, found a file/,
    );
  });

  it('rejects an explicitly named unsupported file', async () => {
    await expect(ingest(join(root, 'kb-x'), [join(corpus, 'notes.docx')], { embedder: lexical(), cwd: root })).rejects.toThrow(
      /notes\.docx: unsupported file type/,
    );
  });
});

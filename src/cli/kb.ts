import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { createEmbedder } from '../ground/embedders/resolve.js';
import { ingest } from '../ground/kb/ingest.js';
import { readManifest } from '../ground/kb/kb-store.js';
import { DEFAULT_KB, embedderConfig, embedderOptions } from './ground-options.js';
import { intFlag, numberFlag } from './flags.js';

/** `assay kb ingest <paths…> --kb <dir>` and `assay kb info --kb <dir>`. */
export function register(program: Command): void {
  const kb = program.command('kb').description('Build and inspect grounding knowledge bases');
  embedderOptions(
    kb
      .command('ingest')
      .description('Add .txt, .md, .html and .pdf files (or folders of them) to a knowledge base; unchanged files are skipped')
      .argument('<paths...>', 'files or directories')
      .option('--kb <dir>', 'knowledge base directory', DEFAULT_KB)
      .option('--embedder <kind>', 'lexical | transformers | openai (only when creating the KB)', 'lexical')
      .option('--embedding-model <name>', 'transformers: model id (default Xenova/all-MiniLM-L6-v2); openai: model name')
      .option('--dimension <n>', 'lexical: vector dimension (default 384)')
      .option('--chunk-size <tokens>', 'chunk size in tokens, 500–700', '600')
      .option('--overlap <fraction>', 'chunk overlap, 0.10–0.15', '0.125')
      .option('--json', 'print the summary as JSON'),
  ).action(async (paths: string[], o) => {
    let kind = o.embedder as string;
    const size = intFlag('--chunk-size', o.chunkSize, { min: 500, max: 700 }) as number;
    const overlap = numberFlag('--overlap', o.overlap, { min: 0.1, max: 0.15 }) as number;
    const cfg = {
      ...embedderConfig(o),
      model: o.embeddingModel as string | undefined,
      dimension: intFlag('--dimension', o.dimension, { min: 8, max: 65536 }),
    };
    let embedder;
    try {
      const m = await readManifest(o.kb);
      // An existing KB decides its embedder; a different --embedder is an error raised by ingest.
      if (o.embedder === 'lexical' && m.embedder.kind !== 'lexical') kind = m.embedder.kind;
      const { embedderFromSpec } = await import('../ground/embedders/resolve.js');
      embedder = kind === m.embedder.kind && !o.dimension && !o.embeddingModel ? await embedderFromSpec(m.embedder, cfg) : await createEmbedder(kind, cfg);
    } catch (err) {
      if (!UsageError.isInstance(err) || !/no knowledge base/.test(err.message)) throw err;
      embedder = await createEmbedder(kind, cfg);
    }
    const s = await ingest(o.kb, paths, { embedder, chunk: { size, overlap } });
    const { kb: _kb, ...summary } = s;
    if (o.json) process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else {
      process.stdout.write(
        `${o.kb}: ${summary.documents} documents, ${summary.chunks} chunks, ${summary.windows} windows (${embedder.id})\n` +
          `  added ${summary.added.length}, updated ${summary.updated.length}, unchanged ${summary.unchanged.length} — ${summary.seconds.toFixed(2)} s\n`,
      );
    }
  });
  kb.command('info')
    .description('Show a knowledge base manifest')
    .option('--kb <dir>', 'knowledge base directory', DEFAULT_KB)
    .action(async (o) => {
      const m = await readManifest(o.kb);
      process.stdout.write(JSON.stringify({ embedder: m.embedder, chunking: m.chunking, counts: m.counts, updated: m.updated }, null, 2) + '\n');
    });
}

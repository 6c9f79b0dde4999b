/**
 * Run in a process of its own with a small heap (--max-old-space-size): `stream` writes the four reports of
 * `n` synthetic answers through BatchReportWriter, `memory` builds the same reports from an array of the
 * results (as assay did before issue 30), `answers` writes an answers file of `n` lines and reads it back
 * streamed. Prints what it wrote as JSON; a heap that grows with `n` ends it with "heap out of memory".
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { checkAnswersFile, readAnswers } from '../../ground/answers.js';
import { BatchReportWriter, formatBatchTable, renderBatchJson, renderBatchJunit, renderBatchMarkdown, type AnswerResult } from '../grounding.js';
import { syntheticResults } from './grounding-batch.js';

const [mode, count, dir] = process.argv.slice(2);
const n = Number(count);
const files = { json: join(dir, 'batch.json'), junit: join(dir, 'batch.xml'), markdown: join(dir, 'batch.md') };

if (mode === 'stream') {
  const table = createWriteStream(join(dir, 'table.txt'));
  const writer = new BatchReportWriter({ kb: 'kb', failOn: 'HIGH' }, files, { to: table, color: false });
  for (const r of syntheticResults(n)) writer.add(r);
  const { summary } = await writer.finish();
  table.end();
  await once(table, 'finish');
  console.log(JSON.stringify({ summary, heapUsed: process.memoryUsage().heapUsed }));
} else if (mode === 'memory') {
  const results: AnswerResult[] = [];
  for (const r of syntheticResults(n)) results.push(r);
  const b = { kb: 'kb', failOn: 'HIGH' as const, results };
  writeFileSync(join(dir, 'table.txt'), formatBatchTable(b));
  writeFileSync(files.json, renderBatchJson(b));
  writeFileSync(files.junit, renderBatchJunit(b));
  writeFileSync(files.markdown, renderBatchMarkdown(b));
  console.log(JSON.stringify({ answers: results.length }));
} else if (mode === 'answers') {
  const file = join(dir, 'answers.jsonl');
  const out = createWriteStream(file);
  const answer = 'The bridge opened in 1990 after six years of work. '.repeat(6).trim();
  for (let i = 0; i < n; i++)
    if (!out.write(`${JSON.stringify({ id: `answer-${i}`, query: `When did bridge ${i} open?`, answer })}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  const checked = await checkAnswersFile(file, { generate: false });
  let read = 0;
  let last = '';
  for await (const a of readAnswers(file, { generate: false })) {
    read++;
    last = a.id;
  }
  console.log(JSON.stringify({ checked, read, last, heapUsed: process.memoryUsage().heapUsed }));
} else throw new Error(`mode: expected stream, memory or answers, found ${mode}`);

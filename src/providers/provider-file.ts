import { readFile } from 'node:fs/promises';
import { withoutBom } from '../core/text.js';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../errors.js';
import { chatModelFromConfig, type ModelContext } from './chat-factory.js';

/**
 * A provider object (`anthropic: { model: …, baseURL: … }`, as under `system:`) in a YAML or JSON file named
 * by a command-line flag: SPADE's and grounding's `--llm`, spade's `--judge`. Every error is a usage error
 * naming the flag and the file; field paths start at the flag (`--llm.anthropic.baseURL`).
 */
export async function readProviderFile(file: string, flag: string): Promise<unknown> {
  let text: string;
  try {
    text = withoutBom(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(err as Error).message.split('\n')[0]}`, { file, path: flag });
  }
  try {
    return extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    const kind = extname(file).toLowerCase() === '.json' ? 'JSON' : 'YAML';
    throw new UsageError(`${flag}: ${file} is not valid ${kind}: ${(err as Error).message.split('\n')[0]}`, { file, path: flag });
  }
}

/** The ChatModel (priced) of a provider file given with `flag`, with the provider's name and validated options. */
export async function chatModelFromFile(file: string, flag: string, ctx: Omit<ModelContext, 'file'> = {}): Promise<ReturnType<typeof chatModelFromConfig>> {
  return chatModelFromConfig(await readProviderFile(file, flag), flag, { ...ctx, file });
}

/**
 * A provider file names the model and endpoint, so flags that name them another way cannot come with it:
 * `--llm f.yaml --llm-model m` is a usage error naming both. `others` maps each such flag to its value.
 */
export function fileFlagAlone(flag: string, file: string | undefined, others: Record<string, string | undefined>): void {
  const also = Object.keys(others).filter((k) => others[k] !== undefined);
  if (file !== undefined && also.length)
    throw new UsageError(`${flag} ${file} and ${also.join(' and ')}: expected one of them (the file names the model and endpoint), found both`, { path: flag });
}

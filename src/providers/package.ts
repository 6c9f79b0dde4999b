import { createRequire } from 'node:module';
import { MissingPackageError } from '../errors.js';

const require = createRequire(import.meta.url);

/**
 * A provider's client package, loaded when a model of that provider is built — not when assay starts, so a
 * command that calls no model (or another provider) never loads it — and loaded whole before the first call,
 * so no call waits on a module (a rate limit spaces calls as they leave, not as they finish loading). An
 * optional peer that is not installed is a MissingPackageError (exit 2) naming the install command.
 */
export function loadPackage<T>(packageName: string, feature: string): T {
  try {
    return require(packageName) as T;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'MODULE_NOT_FOUND' && String((err as Error).message).includes(`'${packageName}'`))
      throw new MissingPackageError(packageName, feature, { cause: err });
    throw err;
  }
}

import { describe, expect, it } from 'vitest';
import { StoreError } from './store/errors.js';
import { AssayError, ExitCode, importOptional, MissingPackageError, UsageError } from './errors.js';
import { GroundingRequestError, GroundingUnavailableError } from './ground/types.js';
import { ProviderError } from './providers/types.js';
import { ReportWriteError } from './report/write.js';
import { SandboxError } from './sandbox/errors.js';
import { DuplicateSampleError, UnknownRunError } from './store/validate.js';
import { CheckOptionError } from './validators/builtin.js';

describe('errors', () => {
  it('every error assay raises on purpose is an AssayError carrying its exit code', () => {
    const cases: [Error, number][] = [
      [new UsageError('bad flag'), ExitCode.USAGE],
      [new MissingPackageError('pdfjs-dist', 'PDF ingest'), ExitCode.USAGE],
      [new CheckOptionError('pattern', 'bad regex'), ExitCode.USAGE],
      [new GroundingRequestError('empty answer', 422), ExitCode.USAGE],
      [new UnknownRunError('r1'), ExitCode.USAGE],
      [new StoreError('cannot open'), ExitCode.INTERNAL],
      [new ReportWriteError('disk full'), ExitCode.INTERNAL],
      [new GroundingUnavailableError('llm down'), ExitCode.INTERNAL],
      [new ProviderError('connection', 'ECONNREFUSED'), ExitCode.INTERNAL],
      [new SandboxError('disposed', 'gone'), ExitCode.INTERNAL],
      [new DuplicateSampleError('r1', 0, 0), ExitCode.INTERNAL],
    ];
    for (const [err, code] of cases) {
      expect(err, err.name).toBeInstanceOf(AssayError);
      expect((err as AssayError).exitCode, err.name).toBe(code);
      expect(err.name, err.constructor.name).toBe(err.constructor.name);
    }
  });

  it('a missing optional package is named with its install command; any other failure to load is kept', async () => {
    const missing = importOptional('assay-no-such-package', 'the test feature', () => import('assay-no-such-package' as string));
    await expect(missing).rejects.toThrow(MissingPackageError);
    await expect(missing).rejects.toThrow(
      'the test feature needs the optional package assay-no-such-package, which is not installed: install it with npm install assay-no-such-package',
    );
    const broken = new Error('boom');
    await expect(importOptional('yaml', 'x', () => Promise.reject(broken))).rejects.toBe(broken);
    // A package that is there but misses one of its own dependencies is not reported as itself missing.
    const inner = Object.assign(new Error("Cannot find package 'other' imported from /x/node_modules/yaml/index.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importOptional('yaml', 'x', () => Promise.reject(inner))).rejects.toBe(inner);
    expect(await importOptional('yaml', 'x', () => import('yaml'))).toHaveProperty('parse');
  });
});

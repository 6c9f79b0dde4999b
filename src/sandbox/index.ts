import { QuickJSSandbox, type QuickJSSandboxOptions } from './quickjs.js';
import type { Sandbox } from './types.js';

export { QuickJSSandbox, type QuickJSSandboxOptions } from './quickjs.js';
export { SandboxError, type SandboxErrorKind } from './errors.js';
export { DEFAULT_SANDBOX_LIMITS, type Sandbox, type SandboxedFunction, type SandboxLimits } from './types.js';

/** The default sandbox: QuickJS in WebAssembly. Call dispose() when done. */
export function createSandbox(options: QuickJSSandboxOptions = {}): Sandbox {
  return new QuickJSSandbox(options);
}

/** `assay/sandbox`: the QuickJS sandbox that runs predicates given as text. Listed in docs/api.md. */
export { createSandbox, SandboxError, type Sandbox, type SandboxedFunction, type SandboxLimits } from '../sandbox/index.js';

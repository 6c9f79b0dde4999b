import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Why each compiled function gets a WebAssembly instance of its own, with a capped memory.
 *
 * QuickJS's heap limit (JS_SetMemoryLimit) adds up the usable size of each block it allocates, and in its
 * Emscripten build that size is always 0 (QuickJS has no malloc_usable_size there), so the "limit" only
 * counts 8 bytes of overhead per block: it refuses a single allocation larger than the limit, but a
 * predicate that keeps many smaller ones — 8 MiB typed arrays, ArrayBuffers, 1 MiB strings — grew the
 * WebAssembly memory to its 2 GiB ceiling under a 32 MiB limit. The cap that holds is the WebAssembly
 * memory itself: a `WebAssembly.Memory` whose `maximum` is the limit, which Emscripten's allocator cannot
 * grow past (malloc returns NULL, QuickJS throws "out of memory"). It covers everything the function's
 * QuickJS holds: its heap objects, typed arrays, ArrayBuffers, strings, and QuickJS's own data and stack,
 * for which OVERHEAD_BYTES are added to the limit (measured: with it, ≈ limit − 1 MiB of 1 MiB typed arrays
 * fit, e.g. 31 MiB under 32 MiB; the allocator grows memory in steps of 5–20%, so the last step may not fit).
 */

const PAGE = 64 * 1024;
/** QuickJS's build declares this much memory as its initial size: an instance cannot have less. */
export const MIN_INSTANCE_BYTES = 16 * 1024 * 1024;
/** What QuickJS itself occupies in its instance (static data, stack, runtime, context): ≈5 MiB, rounded up. */
export const OVERHEAD_BYTES = 6 * 1024 * 1024;
/** A wasm32 Emscripten build's ceiling (2 GiB). */
const MAX_PAGES = 32768;

/** The most memory a function's instance may have: its limit plus QuickJS's own, and at least the build's 16 MiB. */
export const instanceBytes = (limitBytes: number): number => PAGE * instancePages(limitBytes);
const instancePages = (limitBytes: number): number => Math.min(MAX_PAGES, Math.max(MIN_INSTANCE_BYTES / PAGE, Math.ceil((limitBytes + OVERHEAD_BYTES) / PAGE)));

/** The linear memory of one function's QuickJS instance, capped at instanceBytes(limitBytes). */
export function instanceMemory(limitBytes: number): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: MIN_INSTANCE_BYTES / PAGE, maximum: instancePages(limitBytes) });
}

/**
 * The QuickJS WebAssembly module of the RELEASE_SYNC variant, compiled once per worker and shared by all
 * its instances (so V8 compiles and optimises its code once). The file is the one quickjs-emscripten
 * itself depends on.
 */
export function compileQuickJSWasm(): WebAssembly.Module {
  const fromQuickJS = createRequire(createRequire(import.meta.url).resolve('quickjs-emscripten'));
  return new WebAssembly.Module(readFileSync(fromQuickJS.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
}

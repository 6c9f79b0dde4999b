import { ArgumentError } from '../errors.js';

/**
 * Where each key was first seen, in about 24 bytes a key instead of a Map's hundred or so: keys are kept as
 * 64-bit hashes in typed arrays (open addressing), never as strings. A hit means the key was *probably* seen
 * (two different keys share a 64-bit hash with odds of ~1e-8 among a million keys), so a caller that must be
 * exact confirms a hit against the earlier key (the answers reader re-reads the two lines).
 */
export class FirstSeen {
  private hashes = new Uint32Array(2 * 1024);
  private positions = new Uint32Array(1024);
  private count = 0;

  /** The position recorded for a key with `key`'s hash, if any; otherwise records `position` (≥ 1) for it. */
  seen(key: string, position: number): number | undefined {
    if (!(Number.isInteger(position) && position >= 1 && position <= 0xffffffff))
      throw new ArgumentError(`position must be a whole number 1…2^32-1, got ${position}`, { key: 'position' });
    const [h1, h2] = hash64(key);
    const mask = this.positions.length - 1;
    let slot = h1 & mask;
    for (;;) {
      const at = this.positions[slot];
      if (at === 0) break;
      if (this.hashes[2 * slot] === h1 && this.hashes[2 * slot + 1] === h2) return at;
      slot = (slot + 1) & mask;
    }
    this.hashes[2 * slot] = h1;
    this.hashes[2 * slot + 1] = h2;
    this.positions[slot] = position;
    if (++this.count * 2 > this.positions.length) this.grow();
    return undefined;
  }

  get size(): number {
    return this.count;
  }

  private grow(): void {
    const { hashes, positions } = this;
    this.hashes = new Uint32Array(hashes.length * 2);
    this.positions = new Uint32Array(positions.length * 2);
    const mask = this.positions.length - 1;
    for (let i = 0; i < positions.length; i++) {
      if (positions[i] === 0) continue;
      let slot = hashes[2 * i] & mask;
      while (this.positions[slot] !== 0) slot = (slot + 1) & mask;
      this.hashes[2 * slot] = hashes[2 * i];
      this.hashes[2 * slot + 1] = hashes[2 * i + 1];
      this.positions[slot] = positions[i];
    }
  }
}

/** Two independent 32-bit hashes of the UTF-16 code units (cyrb53's mixing, as two halves). */
function hash64(s: string): [number, number] {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 >>> 0];
}

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// README's install path before publication (issue 26, item 6): `npm install assay` is E404 until assay is on npm,
// so README gives a line that installs the packed tarball, and scripts/smoke-pack.sh runs that line as written.
// Here, without the registry: the line is there, names this package's tarball, and the smoke test reads it.
const readme = readFileSync('README.md', 'utf8');
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string };

describe("README's install before publication", () => {
  it("names the tarball npm pack writes for this version, and smoke-pack.sh installs with README's line", () => {
    const line = /^npm install \.\/assay\/(assay-[^ ]+\.tgz)/m.exec(readme);
    expect(line?.[1]).toBe(`${pkg.name}-${pkg.version}.tgz`);
    expect(readme).toMatch(/npm ci && npm pack/);
    const smoke = readFileSync('scripts/smoke-pack.sh', 'utf8');
    expect(smoke).toContain('grep -m1 -E \'^npm install \\./assay/assay-[^ ]+\\.tgz\' "$ROOT/README.md"');
    expect(smoke).toContain('expect 0 install.log $README_INSTALL --no-audit --no-fund');
  });
});

/**
 * The layer order of docs/architecture.md, enforced by `npm run lint`: a folder imports only folders earlier
 * in LAYERS (lower in the stack), nothing imports itself back through others (type imports included), and
 * shipped code never imports test code. Tests (`*.test.ts`, `*.case.ts`) and test support (`testing/`
 * folders) may import any layer; they may not close a circle either.
 */

/** Lowest first. Each entry: a name (as in docs/architecture.md) and the path it covers. */
const LAYERS = [
  ['base', '^src/(errors|lazy|invocation)\\.ts$'],
  ['core', '^src/core/'],
  ['sandbox', '^src/sandbox/'],
  ['store', '^src/store/'],
  ['otel', '^src/otel/'],
  ['providers', '^src/providers/'],
  ['judge', '^src/judge/'],
  ['ground', '^src/ground/'],
  ['validators', '^src/validators/'],
  ['config', '^src/config/'],
  ['run', '^src/run/'],
  ['grades', '^src/grades/'],
  ['guard', '^src/guard/'],
  ['spade', '^src/spade/'],
  ['report', '^src/report/'],
  ['queue', '^src/queue/'],
  ['monitor', '^src/monitor/'],
  ['app', '^src/app/'],
  ['mock', '^src/mock/'],
  ['server', '^src/server/'],
  ['vitest', '^src/vitest/'],
  ['cli', '^src/cli/'],
  ['api', '^src/index\\.ts$|^src/api/'],
];

const TEST_CODE = '(^|/)testing/|\\.test\\.ts$|\\.case\\.ts$';

const layerRules = LAYERS.slice(0, -1).map(([name, path], i) => ({
  name: `layer-${name}`,
  comment: `${name} imports only layers below it (docs/architecture.md): not ${LAYERS.slice(i + 1)
    .map(([n]) => n)
    .join(', ')}`,
  severity: 'error',
  from: { path, pathNot: TEST_CODE },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => `(${p})`), pathNot: TEST_CODE },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a module imports itself back through others (type imports count: they couple the files all the same)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-test-code-in-shipped-code',
      comment: 'shipped code imports no test, contract suite or testing/ helper',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST_CODE },
      to: { path: TEST_CODE },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/.*\\.d\\.ts$' },
    // Type-only imports couple modules as much as value imports: they count.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mts', '.mjs'],
    },
  },
};

import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Assay's errors are told apart by their markers (`UsageError.isInstance(err)`), never by `instanceof`: the bin is a
// bundle and a TypeScript config imports the package, two copies of every class (docs/architecture.md). Any
// `instanceof <Name>Error` is flagged unless the class is one of these, which are not assay's.
const FOREIGN_ERRORS = [
  'Error',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'EvalError',
  'URIError',
  'AggregateError',
  'CommanderError',
  'CsvError',
];
const foreign = `/^(${FOREIGN_ERRORS.join('|')})$/`;
const isInstanceOnly = 'an assay error is told by its marker, not by instanceof (two copies of assay can meet): use X.isInstance(err)';
const noInstanceof = [
  { selector: `BinaryExpression[operator='instanceof'][right.type='Identifier'][right.name=/Error$/]:not([right.name=${foreign}])`, message: isInstanceOnly },
  {
    selector: `BinaryExpression[operator='instanceof'][right.type='MemberExpression'][right.property.name=/Error$/]:not([right.property.name=${foreign}])`,
    message: isInstanceOnly,
  },
];
// A bad argument to a library function is an ArgumentError naming it (src/errors.ts); fetch's own contract
// (providers/transport.ts, buffered-response.ts) keeps its TypeErrors.
const noBareArgumentErrors = {
  selector: 'NewExpression[callee.name=/^(RangeError|TypeError)$/]',
  message: 'a bad argument is an ArgumentError with where: { key } (src/errors.ts), not a bare RangeError or TypeError',
};

// Spreading an array into a call's arguments (Math.max(...xs), a.push(...xs)) throws past ~125k elements (issue
// 30: an audit of 130k answers lost its report there): core/arrays.ts folds over any length.
const noSpreadArguments = {
  selector: "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(max|min|push|unshift|splice|fromCharCode|fromCodePoint)$/] > SpreadElement",
  message: 'spreading an array into arguments throws past ~125k elements: use maxOf, minOf or pushAll (core/arrays.ts)',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.assay/**', 'coverage/**', 'test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    files: ['.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...noInstanceof] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.case.ts', '**/testing/**', 'src/providers/transport.ts', 'src/providers/buffered-response.ts'],
    rules: { 'no-restricted-syntax': ['error', ...noInstanceof, noBareArgumentErrors, noSpreadArguments] },
  },
  {
    // The pure core must not reach the edge (GUIDE: "core/ imports nothing from the edge").
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['node:*', 'fs', 'http', '../run/*', '../store/*', '../providers/*', '../server/*', '../cli/*'] }],
    },
  },
);

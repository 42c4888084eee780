import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { SUBPATHS } from './scripts/entries.js'

export default defineConfig({
  resolve: {
    // Examples and the README's blocks import the package by name, as users do; tests run
    // them against the source. The entries are those package.json exports.
    alias: [
      ...SUBPATHS.map((entry) => ({
        find: `context-window/${entry}`,
        replacement: fileURLToPath(new URL(`./src/${entry}.ts`, import.meta.url)),
      })),
      {
        find: 'context-window',
        replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['test/helpers/encodings.ts', 'test/helpers/props-time-limit.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})

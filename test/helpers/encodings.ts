// Test setup: the loader the Node entries install (it reads the tables' TypeScript source
// here), so that modules imported one by one count exactly, loading a table on first need.
import '../../src/tokens/node-encodings.js'

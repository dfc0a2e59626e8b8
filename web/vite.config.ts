import { defineConfig } from 'vitest/config';
import { viteStaticCopy } from 'vite-plugin-static-copy';

// onnxruntime-web fetches its WebAssembly at run time; copying it into dist/ort/ (and
// pointing ort.env.wasm.wasmPaths there) keeps the site offline and base-path independent.
export default defineConfig({
  base: './',
  plugins: [
    viteStaticCopy({
      targets: [{ src: 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.{wasm,mjs}', dest: 'ort' }],
    }),
  ],
  test: { include: ['tests/**/*.test.ts'] },
});

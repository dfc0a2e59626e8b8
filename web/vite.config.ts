import { defineConfig } from 'vitest/config';

// base './': the built site works from any path. onnxruntime-web's bundle locates its
// WebAssembly with `new URL(..., import.meta.url)`, which Vite emits into dist/assets/:
// no CDN, so the site also works offline.
export default defineConfig({
  base: './',
  // the review's Web Worker (src/reviewWorker.ts) imports onnxruntime-web, which splits its code: ES module workers
  worker: { format: 'es' },
  // testTimeout: a guard against a hang, not a speed check (speed is measured by benchmarks);
  // vitest's 5 s default fails a sampling test when the 2-core machine is busy.
  test: { include: ['tests/**/*.test.ts'], testTimeout: 60_000 },
});

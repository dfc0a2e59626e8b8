import { defineConfig } from 'vitest/config';

// base './': the built site works from any path. onnxruntime-web's bundle locates its
// WebAssembly with `new URL(..., import.meta.url)`, which Vite emits into dist/assets/:
// no CDN, so the site also works offline.
export default defineConfig({
  base: './',
  test: { include: ['tests/**/*.test.ts'] },
});

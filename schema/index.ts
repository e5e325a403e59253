export * from './formats.js';
export * from './plans.js';
export * from './credits.js';
export * from './wire.js';
export * from './units.js';
export * from './webhooks.js';
export * from './pipelines.js';
export * from './exports.js';

export * from './core.js';
export * from './projects.js';
export * from './tags.js';
export * from './incidents.js';
export * from './ai.js';

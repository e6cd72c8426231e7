export * from './open.js';
export * from './port.js';
export * from './postgres-db.js';
export * from './sqlite-db.js';

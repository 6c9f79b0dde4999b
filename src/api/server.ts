/** `assay/server`: the HTTP service — `POST /analyze` and the dashboard. Listed in docs/api.md. */
export { startServer, type ServerHandle, type StartOptions } from '../server/start.js';

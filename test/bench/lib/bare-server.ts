import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import express from 'express';
import { loadTls } from '../../../src/tls.js';

/**
 * The baseline: a bare Express app over HTTPS that answers GET /v1/disputes/:id with one fixed JSON body
 * (BODY_FILE: a real dispute object, so both sides send the same bytes), with the service's certificate.
 * No logging, auth or database: the most any handler on this machine could do. Run as a child process by
 * the benches (PORT, DATA_DIR, BODY_FILE).
 */

const port = Number(process.env.PORT);
const dataDir = process.env.DATA_DIR;
const bodyFile = process.env.BODY_FILE;
if (!Number.isInteger(port) || port <= 0 || !dataDir || !bodyFile) {
  throw new Error('bare-server needs PORT, DATA_DIR and BODY_FILE');
}

const body: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'));
const tls = await loadTls({ DATA_DIR: dataDir });

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/v1/disputes/:id', (_req, res) => {
  res.json(body);
});

const server = createServer({ cert: tls.cert, key: tls.key }, app);
server.listen(port, '127.0.0.1');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

import { createServer } from 'node:https';
import express from 'express';
import postgres from 'postgres';
import { loadTls } from '../../../src/tls.js';

/**
 * The second baseline of the read bench: a bare Express app over HTTPS that answers GET /v1/disputes/:id
 * with the dispute's row, read by one prepared select on its unique key (organisation, mode, id) over a
 * pool the size of the service's. No logging, auth, cache or shaping: what a read that must reach
 * Postgres costs on this machine at the least. Run as a child process by the api bench (PORT, DATA_DIR,
 * DATABASE_URL, ORG_ID).
 */

const port = Number(process.env.PORT);
const { DATA_DIR: dataDir, DATABASE_URL: url, ORG_ID: org } = process.env;
if (!Number.isInteger(port) || port <= 0 || !dataDir || !url || !org) {
  throw new Error('bare-db-server needs PORT, DATA_DIR, DATABASE_URL and ORG_ID');
}

const sql = postgres(url, { max: 10, prepare: true });
const tls = await loadTls({ DATA_DIR: dataDir });

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/v1/disputes/:id', async (req, res) => {
  const [row] =
    await sql`select * from disputes where org_id = ${org} and livemode = false and id = ${req.params.id}`;
  if (row) res.json(row);
  else res.status(404).json({ error: 'not found' });
});

const server = createServer({ cert: tls.cert, key: tls.key }, app);
server.listen(port, '127.0.0.1');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => void sql.end({ timeout: 1 }).then(() => process.exit(0)));
    server.closeAllConnections();
  });
}

import { loadConfig } from '../config.js';
import { openDatabase } from './client.js';
import { runMigrations } from './migrate.js';

const config = loadConfig();
const database = await openDatabase(config, { max: 1, listens: false });
try {
  await runMigrations(database.sessionDb);
  console.log(`migrations applied to ${database.describe}`);
} finally {
  await database.close();
}

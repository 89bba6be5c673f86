import { loadConfig } from '../config.js';
import { connectDatabase } from './client.js';
import { runMigrations } from './migrate.js';

const config = loadConfig();
const database = connectDatabase(config.DATABASE_URL, { max: 1 });
try {
  await runMigrations(database.db);
  console.log('migrations applied');
} finally {
  await database.close();
}

import { link, rm, writeFile } from 'node:fs/promises';

/**
 * Creates `path` holding `content` unless it exists, as one step: the content is written aside and
 * linked into place whole, so no reader (another process starting at the same moment, or this one after
 * a crash mid-write) ever sees the file empty or half-written. True when this call created it.
 */
export async function createWhole(path: string, content: string, mode = 0o600): Promise<boolean> {
  const aside = `${path}.${process.pid}.tmp`;
  await writeFile(aside, content, { mode });
  try {
    await link(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await rm(aside, { force: true });
  }
}

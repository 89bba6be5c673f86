/**
 * A processor call's path as the log shows it: the path alone, without host, query or fragment, where
 * credentials and customer data may travel. `path` is an HttpCall's: relative to the base URL (a leading
 * slash or none), or absolute for a second host of the same processor.
 */
export function loggedPath(path: string): string {
  const relative = path.replace(/^\//, '');
  return /^https?:\/\//.test(relative) ? new URL(relative).pathname : `/${relative.split(/[?#]/)[0]}`;
}

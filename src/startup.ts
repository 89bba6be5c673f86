/** The innermost cause's message: "database "x" does not exist", not drizzle's "Failed query: ...". */
export function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (!(current instanceof Error)) return String(current);
  const code = (current as { code?: unknown }).code;
  return current.message || (typeof code === 'string' ? code : current.name);
}

-- Response documents and uploaded files are PDF, PNG or JPEG: compressed already. Stored as the default
-- EXTENDED, every value over 2 KB made Postgres try pglz on it first, in vain, on each write (a tenth of
-- the database's CPU on the submission path: docs/contributing.md "Response documents: figures and
-- profiles"). EXTERNAL moves them out of line without trying. Only new values are stored so.
ALTER TABLE "documents" ALTER COLUMN "pdf" SET STORAGE EXTERNAL;--> statement-breakpoint
ALTER TABLE "file_contents" ALTER COLUMN "content" SET STORAGE EXTERNAL;

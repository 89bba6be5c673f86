CREATE TABLE "file_contents" (
	"file_id" text NOT NULL,
	"content" "bytea" NOT NULL,
	CONSTRAINT "file_contents_file_id_pk" PRIMARY KEY("file_id")
);
--> statement-breakpoint
CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"purpose" text NOT NULL,
	"filename" text NOT NULL,
	"type" text NOT NULL,
	"size" integer NOT NULL,
	"pages" integer,
	"sha256" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "evidence_files" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "product_images" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "file_contents" ADD CONSTRAINT "file_contents_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "files_list_idx" ON "files" USING btree ("org_id","livemode","created_at","id");
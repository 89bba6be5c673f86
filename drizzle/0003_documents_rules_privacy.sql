CREATE TABLE "documents" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"dispute_uid" uuid NOT NULL,
	"submission_id" text NOT NULL,
	"input" jsonb NOT NULL,
	"evidence" jsonb NOT NULL,
	"pdf" "bytea" NOT NULL,
	"sha256" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "documents_submissionId_unique" UNIQUE("submission_id")
);
--> statement-breakpoint
CREATE TABLE "personal_data_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"kind" text NOT NULL,
	"email_hash" text NOT NULL,
	"name_hash" text NOT NULL,
	"notification_email" text,
	"subject" text,
	"export" text,
	"summary" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"failure" text
);
--> statement-breakpoint
CREATE TABLE "rules" (
	"uid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"position" integer NOT NULL,
	"name" text,
	"conditions" jsonb NOT NULL,
	"action" text NOT NULL,
	"template" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "due_soon_hours" integer;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "default_templates" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "document_id" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "document_sha256" text;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_dispute_uid_disputes_uid_fk" FOREIGN KEY ("dispute_uid") REFERENCES "public"."disputes"("uid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_submission_id_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."submissions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personal_data_requests" ADD CONSTRAINT "personal_data_requests_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rules" ADD CONSTRAINT "rules_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "documents_dispute_idx" ON "documents" USING btree ("dispute_uid","created_at");--> statement-breakpoint
CREATE INDEX "personal_data_requests_person_idx" ON "personal_data_requests" USING btree ("org_id","livemode","email_hash");--> statement-breakpoint
CREATE INDEX "personal_data_requests_waiting_idx" ON "personal_data_requests" USING btree ("created_at") WHERE "personal_data_requests"."completed_at" is null and "personal_data_requests"."failure" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "rules_tenant_position_unique" ON "rules" USING btree ("org_id","livemode","position");
CREATE TABLE "idempotency_keys" (
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"locked_until" timestamp with time zone,
	"wrote_at" timestamp with time zone,
	"status" integer,
	"headers" jsonb,
	"body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_org_id_livemode_key_pk" PRIMARY KEY("org_id","livemode","key")
);
--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "network" text;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "network_reason_code" text;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "processor_status" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");
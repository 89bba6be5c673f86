CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"hash" text NOT NULL,
	"last_four" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "disputes" (
	"uid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"id" text NOT NULL,
	"state" text NOT NULL,
	"reason" text NOT NULL,
	"kind" text DEFAULT 'chargeback' NOT NULL,
	"source" text NOT NULL,
	"processor" text,
	"account" text,
	"charged_at" timestamp with time zone,
	"disputed_at" timestamp with time zone,
	"due_by" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"charge" text,
	"is_charge_refundable" boolean,
	"amount" bigint,
	"currency" text,
	"fee" bigint,
	"reversal_amount" bigint,
	"reversal_total" bigint,
	"reversal_currency" text,
	"customer" text,
	"customer_name" text,
	"customer_email" text,
	"customer_purchase_ip" text,
	"address_zip" text,
	"address_line1_check" text,
	"address_zip_check" text,
	"cvc_check" text,
	"statement_descriptor" text,
	"template" text,
	"fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"products" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"correspondence" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"past_payments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reference_url" text,
	"account_id" text,
	"submitted_at" timestamp with time zone,
	"submitted_count" integer DEFAULT 0 NOT NULL,
	"submit_at" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"type" text NOT NULL,
	"dispute_uid" uuid,
	"data" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"relayed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "organisations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"api_version" text NOT NULL,
	"queue_lead_minutes" integer DEFAULT 1440 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "submissions" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"dispute_uid" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"adapter" text NOT NULL,
	"previous_state" text NOT NULL,
	"evidence" jsonb NOT NULL,
	"processor_reference" text,
	"failure" jsonb,
	"claimed_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "templates" (
	"uid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"id" text NOT NULL,
	"name" text,
	"description" text,
	"fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reasons" jsonb,
	"body" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "submissions" ADD CONSTRAINT "submissions_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "submissions" ADD CONSTRAINT "submissions_dispute_uid_disputes_uid_fk" FOREIGN KEY ("dispute_uid") REFERENCES "public"."disputes"("uid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "templates" ADD CONSTRAINT "templates_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_unique" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_active_unique" ON "api_keys" USING btree ("org_id","livemode") WHERE "api_keys"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_tenant_id_unique" ON "disputes" USING btree ("org_id","livemode","id");--> statement-breakpoint
CREATE INDEX "disputes_list_idx" ON "disputes" USING btree ("org_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "events_list_idx" ON "events" USING btree ("org_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "events_unrelayed_idx" ON "events" USING btree ("created_at") WHERE "events"."relayed_at" is null;--> statement-breakpoint
CREATE INDEX "submissions_dispute_idx" ON "submissions" USING btree ("dispute_uid","created_at");--> statement-breakpoint
CREATE INDEX "submissions_pending_idx" ON "submissions" USING btree ("created_at") WHERE "submissions"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "templates_tenant_id_unique" ON "templates" USING btree ("org_id","livemode","id");--> statement-breakpoint
CREATE INDEX "templates_list_idx" ON "templates" USING btree ("org_id","livemode","created_at","id");
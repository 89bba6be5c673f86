CREATE TABLE "alerts" (
	"uid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"id" text NOT NULL,
	"processor" text NOT NULL,
	"account" text NOT NULL,
	"charge" text,
	"amount" bigint,
	"currency" text,
	"fraud_type" text,
	"actionable" boolean NOT NULL,
	"reported_at" timestamp with time zone,
	"outcome" text DEFAULT 'open' NOT NULL,
	"refund" text,
	"refund_failure" text,
	"refund_claimed_until" timestamp with time zone,
	"dispute" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "connected_accounts" ADD COLUMN "alert_cursor" text;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "resolution" text;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "compelling_evidence_processor_status" text;--> statement-breakpoint
ALTER TABLE "disputes" ADD COLUMN "alert" text;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "visa_compliance_fee" text DEFAULT 'refuse' NOT NULL;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "alert_refund_up_to" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "compelling_evidence" jsonb;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_tenant_id_unique" ON "alerts" USING btree ("org_id","livemode","id");--> statement-breakpoint
CREATE INDEX "alerts_list_idx" ON "alerts" USING btree ("org_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "alerts_charge_idx" ON "alerts" USING btree ("org_id","livemode","charge");--> statement-breakpoint
-- Alerts carry a version like disputes (0001_version_triggers.sql): cached objects and optimistic checks key on it.
CREATE TRIGGER alerts_bump_version BEFORE UPDATE ON alerts FOR EACH ROW EXECUTE FUNCTION bump_version();

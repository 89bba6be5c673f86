CREATE INDEX IF NOT EXISTS "disputes_state_idx" ON "disputes" USING btree ("org_id","livemode","state","created_at","id","due_by");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_account_idx" ON "disputes" USING btree ("org_id","livemode","account","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_reason_idx" ON "disputes" USING btree ("org_id","livemode","reason","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_processor_idx" ON "disputes" USING btree ("org_id","livemode","processor","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_currency_idx" ON "disputes" USING btree ("org_id","livemode","currency","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_evidence_idx" ON "disputes" USING btree ("org_id","livemode",("template" is not null or "fields" <> '{}'::jsonb or "products" <> '[]'::jsonb or "correspondence" <> '[]'::jsonb or "past_payments" <> '[]'::jsonb or "evidence_files" <> '[]'::jsonb),"created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_due_by_idx" ON "disputes" USING btree ("org_id","livemode","due_by","created_at","id","state");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_disputed_at_idx" ON "disputes" USING btree ("org_id","livemode","disputed_at","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_kind_idx" ON "disputes" USING btree ("org_id","livemode","kind");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_network_idx" ON "disputes" USING btree ("org_id","livemode","network");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_charge_idx" ON "disputes" USING btree ("org_id","livemode","charge");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_customer_idx" ON "disputes" USING btree ("org_id","livemode","customer");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_customer_email_idx" ON "disputes" USING btree ("org_id","livemode",lower("customer_email"));--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "disputes_amount_idx" ON "disputes" USING btree ("org_id","livemode","amount");
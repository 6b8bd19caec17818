-- WEBHOOK_CLICK_BACKLOG (resources/webhooks/backlog.ts): the click writer counts an account's pending
-- deliveries through the pending index, and a webhook counts the click events it missed meanwhile.
-- The delivery worker reads each webhook's due deliveries from its end of the same index (a few per
-- account at a time). /metrics counts pending and failed deliveries through the two partial
-- indexes, not by reading every delivered one kept for 30 days. The old due index (by time alone)
-- served only the worker's previous claim, which took the oldest due rows whoever they belonged to.
DROP INDEX "webhook_deliveries_due_idx";--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "click_events_skipped" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "click_events_skipped_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("webhook_id","next_attempt_at","id") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("webhook_id") WHERE "webhook_deliveries"."status" = 'failed';
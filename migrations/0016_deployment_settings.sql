-- A deployment's own facts, shared by its instances and the CLI: secret_check records which SECRET_KEY
-- its API keys were made with, so a process with another secret refuses to start (accounts/deployment-secret.ts).
CREATE TABLE "deployment_settings" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE `api_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`day` text NOT NULL,
	`tenant_id` text,
	`cluster_id` text,
	`method` text NOT NULL,
	`route` text NOT NULL,
	`status` integer NOT NULL,
	`latency_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `api_calls_tenant_day` ON `api_calls` (`tenant_id`,`day`);--> statement-breakpoint
CREATE INDEX `api_calls_cluster` ON `api_calls` (`cluster_id`,`ts`);--> statement-breakpoint
CREATE TABLE `cluster_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`cluster_id` text NOT NULL,
	`tenant_id` text,
	`type` text NOT NULL,
	`detail` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cluster_events_cluster` ON `cluster_events` (`cluster_id`,`ts`);--> statement-breakpoint
CREATE TABLE `cluster_objects` (
	`cluster_id` text NOT NULL,
	`key` text NOT NULL,
	`body` text NOT NULL,
	PRIMARY KEY(`cluster_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `cluster_state` (
	`cluster_id` text PRIMARY KEY NOT NULL,
	`meta` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `clusters` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`lab` text NOT NULL,
	`forked_from` text,
	`created_at` integer NOT NULL,
	`deleted_at` integer,
	`end_reason` text
);
--> statement-breakpoint
CREATE INDEX `clusters_tenant` ON `clusters` (`tenant_id`,`deleted_at`);--> statement-breakpoint
CREATE TABLE `commands` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`cluster_id` text NOT NULL,
	`tenant_id` text,
	`command` text NOT NULL,
	`exit_code` integer NOT NULL,
	`stdout_bytes` integer NOT NULL,
	`stderr_bytes` integer NOT NULL,
	`duration_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `commands_cluster` ON `commands` (`cluster_id`,`ts`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`cluster_id` text NOT NULL,
	`reason` text NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `snapshots_cluster` ON `snapshots` (`cluster_id`,`ts`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`limits` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_key_hash_unique` ON `tenants` (`key_hash`);
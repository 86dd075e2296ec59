CREATE TABLE `traffic_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`cluster_id` text NOT NULL,
	`tenant_id` text,
	`command` text NOT NULL,
	`connections` integer NOT NULL,
	`detail` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `traffic_runs_cluster` ON `traffic_runs` (`cluster_id`,`ts`);
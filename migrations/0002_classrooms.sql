CREATE TABLE `classroom_students` (
	`classroom_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`code` text NOT NULL,
	`cluster_id` text,
	`joined_at` integer NOT NULL,
	`extra_ms` integer DEFAULT 0 NOT NULL,
	`resets` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`classroom_id`, `id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `classroom_students_name` ON `classroom_students` (`classroom_id`,`name`);--> statement-breakpoint
CREATE TABLE `classrooms` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`lab` text NOT NULL,
	`title` text NOT NULL,
	`minutes` integer NOT NULL,
	`starts_at` integer,
	`ends_at` integer,
	`capacity` integer NOT NULL,
	`extra_ms` integer DEFAULT 0 NOT NULL,
	`review_ms` integer NOT NULL,
	`closed_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `clusters` ADD `classroom_id` text;
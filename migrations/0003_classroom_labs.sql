ALTER TABLE `classroom_students` ADD `lab_index` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `classroom_students` ADD `past_clusters` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `classrooms` ADD `next_labs` text DEFAULT '[]' NOT NULL;
-- A large upload's lexemes are counted once, when its last batch commits, instead of batch by batch:
-- each batch's upsert into chunk_lexemes took about a quarter of PostgreSQL's CPU for the file, and
-- batches written in parallel locked the same lexeme rows. The flag says whether a
-- submission's chunks are in the counts, so taking them off (re-index, failure, deletion) subtracts
-- exactly what was added, also after a crash mid-file. Every stored chunk was counted until now.
ALTER TABLE "submissions" ADD COLUMN "lexemes_counted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "submissions" s SET "lexemes_counted" = true
  WHERE EXISTS (SELECT 1 FROM "chunks" c WHERE c.organization_id = s.organization_id AND c.submission_id = s.id);

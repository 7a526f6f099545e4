-- Games of players' own variants count for their definition's rating family, which is the
-- game's own variant (`custom:<hash>`), whatever family the variant's file claimed (issue 30).
-- Games created before that rule and still being played are moved to it here, so that their
-- result counts there when it comes. Finished games keep the ratings they gave: moving them
-- would mean replaying every later rated game of the families involved. Keep in step with
-- the other backend's copy of this file.
UPDATE games
SET rating_family = variant
WHERE variant LIKE 'custom:%'
  AND rating_family IS NOT NULL
  AND rating_family <> variant
  AND status = 'active';

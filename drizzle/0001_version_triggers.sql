-- Every update of a dispute or a template bumps its `version`. Cached dispute objects are keyed by these
-- versions, and workers use them for optimistic checks, so the bump lives here, where no writer can
-- forget it.
CREATE FUNCTION bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER disputes_bump_version BEFORE UPDATE ON disputes FOR EACH ROW EXECUTE FUNCTION bump_version();
--> statement-breakpoint
CREATE TRIGGER templates_bump_version BEFORE UPDATE ON templates FOR EACH ROW EXECUTE FUNCTION bump_version();

-- A project's own settings for where its documentation is (ragd.Layout, as
-- JSON): include and exclude globs, its ADR folders, package READMEs and
-- root files on or off. '' is none: the rules alone decide.
ALTER TABLE projects ADD COLUMN layout TEXT NOT NULL DEFAULT '';

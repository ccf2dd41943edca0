-- Per-language titles of promotions, mission groups and missions (docs/i18n.md "Titles"): an object
-- whose keys are 'en', 'ko', 'ja', 'zh-TW' or 'th' and whose values are titles. `title` stays the
-- default-language title and the fallback. A constant default: adding the column rewrites nothing.
ALTER TABLE promotions ADD COLUMN IF NOT EXISTS titles jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE mission_groups ADD COLUMN IF NOT EXISTS titles jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE missions ADD COLUMN IF NOT EXISTS titles jsonb NOT NULL DEFAULT '{}'::jsonb;

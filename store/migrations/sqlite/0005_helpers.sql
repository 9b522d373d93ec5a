-- name: helpers
--
-- The column helpers: the new methods a refactoring adds beside the method
-- (Composed Method), or a revert removes, each with its selector, protocol,
-- side and source, as a JSON list; NULL when the change is the method alone.
-- Rows from before this step changed one method each, so NULL is what they
-- hold. A new nullable column needs no rebuild of the table: its rules,
-- indexes and triggers stay as they are.

ALTER TABLE runs ADD COLUMN helpers TEXT;

-- name: equivalence
--
-- The column equivalence: the run's last comparison of the original and a
-- candidate run side by side on the same inputs (outcome same, changed or
-- not_checked, the inputs compared, the witness of a difference), as the
-- JSON object the run's answer holds. NULL for the rows before this step
-- and for runs that ended before a comparison.

ALTER TABLE runs ADD COLUMN equivalence json;

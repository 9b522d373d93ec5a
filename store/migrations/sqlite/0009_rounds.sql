-- name: rounds
--
-- The column rounds: every pass of the run's validation loop (its
-- candidate and helper methods, the checks' errors, the validator's
-- verdict and feedback), as the JSON list the run's answer holds, so that
-- a run's rounds are read from its row long after it ended and wherever
-- it ran. NULL for the rows before this step and for runs that ended
-- before a round. A plain added column: a later step that rebuilds the
-- table must list it.

ALTER TABLE runs ADD COLUMN rounds TEXT;

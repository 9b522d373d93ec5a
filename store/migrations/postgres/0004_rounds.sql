-- name: rounds
--
-- The column rounds: every pass of the run's validation loop (its
-- candidate and helper methods, the checks' errors, the validator's
-- verdict and feedback), as the JSON list the run's answer holds, so that
-- a run's rounds are read from its row long after it ended and on
-- whichever worker it ran. NULL for the rows before this step and for
-- runs that ended before a round.

ALTER TABLE runs ADD COLUMN rounds json;

"""Designer tools: question impact, simulations, change logs, diffs between revisions, rule reports."""

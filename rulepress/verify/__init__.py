"""The gate: replay every example against its engine, trace rules to code and examples."""

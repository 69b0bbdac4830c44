"""rulepress: rulebooks whose worked examples are replayed against an executable engine."""

__version__ = "0.1.0"

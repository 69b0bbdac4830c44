"""Load a book's sources: YAML with lines, chapters and rules, examples, component checks."""

"""What an example leaves out is what rulepress/guides/formats.md says: "seed: 7  # chance seed (default 0)"."""

from __future__ import annotations

from pathlib import Path

from rulepress.load.book import load_book
from rulepress.load.examples import load_examples

EXAMPLE = "examples/mini/mini-last-stone.yaml"


def test_an_example_without_a_seed_has_seed_0_and_one_with_a_seed_has_it(mini: Path) -> None:
    [example] = load_examples(load_book(mini, "mini"))
    assert example.seed == 0
    path = mini / EXAMPLE
    path.write_text(path.read_text(encoding="utf-8").replace("players:", "seed: 7\nplayers:", 1), encoding="utf-8")
    [example] = load_examples(load_book(mini, "mini"))
    assert example.seed == 7

"""The command line on the small fixture project: verify --json, questions, rules, diff."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from rulepress.analyze.diff import word_diff
from rulepress.cli import main

from .conftest import DASK_WORKERS


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_verify_json_records(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--root", str(mini), "verify", "--json")
    assert code == 0
    [record] = [json.loads(line) for line in out.splitlines()]
    assert record == {"kind": "example", "id": "mini-last-stone", "book": "mini",
                      "rules": ["mini.play.take", "mini.play.win"], "status": "passed", "message": "",
                      "source": "authored"}


def test_verify_json_keeps_problems_and_warnings_out_of_the_example_records(
        mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One record per example, as the README promises; what belongs to no example is a record of its own kind."""
    (mini / "examples/mini/notes.txt").write_text("not an example")  # a problem of no example
    (mini / "rules_src/mini/de").mkdir()  # an undeclared translation folder: an error too
    code, out = run(capsys, "--root", str(mini), "verify", "--json")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [r for r in records if r["kind"] == "example"] == [
        {"kind": "example", "id": "mini-last-stone", "book": "mini", "rules": ["mini.play.take", "mini.play.win"],
         "status": "passed", "message": "", "source": "authored"}]
    errors = [r for r in records if r["kind"] == "error"]
    assert all(set(r) == {"kind", "message"} for r in records if r["kind"] != "example")
    assert any(r["message"].startswith("examples/mini/notes.txt: not an example") for r in errors), errors
    assert any(r["message"].startswith("rules_src/mini/de: a translation into 'de'") for r in errors), errors
    assert not [r for r in records if r.get("id", "") is None or r.get("book", "") is None]


def test_verify_json_reports_failure(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = mini / "examples/mini/mini-last-stone.yaml"
    path.write_text(path.read_text().replace("winner: Ben}", "winner: Ann}"))
    code, out = run(capsys, "--root", str(mini), "verify", "--json")
    record = json.loads(out)
    assert code == 1 and record["status"] == "failed"
    assert "winner expected 'Ann', got 'Ben'" in record["message"]


def test_questions_lists_open_first(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--root", str(mini), "questions")
    assert code == 0 and "1 open of 1" in out and "mini.q1" in out


@DASK_WORKERS
def test_question_impact_names_changed_example(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--root", str(mini), "questions", "--impact", "--games", "20", "--jobs", "2")
    assert code == 0
    assert "answer 'lose': 1 example(s) change" in out
    assert "mini-last-stone: another outcome" in out
    assert "last_taker_won %: 100.0 -> 0.0" in out  # the simulations measured the change
    saved = json.loads((mini / "reports/impact/mini.json").read_text())
    assert saved["questions"]["mini.q1"]["alternatives"][0]["answer"] == "lose"


def test_rules_json_has_engine_examples_and_coverage(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--root", str(mini), "rules", "--json")
    rules = {r["id"]: r for r in map(json.loads, out.splitlines())}
    assert code == 0 and set(rules) == {"mini.play", "mini.play.take", "mini.play.win"}
    assert rules["mini.play.take"]["engine"] and rules["mini.play.take"]["exercised"]
    assert rules["mini.play.win"]["examples"] == ["mini-last-stone"]
    assert rules["mini.play"]["exercised"] is True  # through the rules under it
    # The option answering mini.q1 is the engine's decision inside the rule it bears on (rulepress guide engine).
    assert [(d["id"], d["question"]) for d in rules["mini.play.win"]["decisions"]] == [("last_stone", "mini.q1")]
    assert rules["mini.play.take"]["decisions"] == []


def test_word_diff() -> None:
    assert word_diff("take 1 to 3 stones", "take 1 to 4 stones") == "take 1 to [-3-] {+4+} stones"


def test_diff_between_revisions(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(mini), *args], check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", "--allow-empty")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v1")
    chapter = mini / "rules_src/mini/chapters/play.md"
    chapter.write_text(chapter.read_text().replace("Whoever takes the last stone wins",
                                                   "The player who takes the final stone wins"))
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "v2")
    code, out = run(capsys, "--root", str(mini), "diff", "mini", "HEAD~1", "HEAD")
    assert code == 0
    assert "reworded   1.2      mini.play.win" in out
    assert "[-Whoever-] {+The player who+} takes the [-last-] {+final+} stone" in out


def test_diff_with_a_bad_revision_refuses_and_leaves_no_export_behind(
        mini: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tempfile

    subprocess.run(["git", "-C", str(mini), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(mini), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(mini), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v1"],
                   check=True)
    exports = tmp_path / "exports"
    exports.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(exports))
    for bad, said in (("no-such-revision", "no-such-revision"), ("--output=x", "'--output=x' is not a git revision"),
                      ("HEAD\n", "'HEAD\\n' is not a git revision")):
        code = main(["--root", str(mini), "diff", "mini", "--", "HEAD", bad])  # the second revision is the bad one
        err = capsys.readouterr().err
        assert code == 1 and err.startswith("rulepress: git HEAD..") and said in err and "Traceback" not in err, err
        assert list(exports.iterdir()) == []  # the first revision's export is removed too
    assert not (mini / "x").exists()


def test_unlogged_rule_change_warns_and_strict_fails(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(mini), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                       capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "v1")
    git("tag", "mini/v1")
    chapter = mini / "rules_src/mini/chapters/play.md"
    chapter.write_text(chapter.read_text().replace("take 1 to", "take one to"))
    assert main(["--root", str(mini), "build", "--strict"]) == 1
    assert "mini.play.take" in capsys.readouterr().err
    changelog = mini / "rules_src/mini/changelog.yaml"
    changelog.write_text(changelog.read_text() + "- edition: v2\n  entries:\n    - title: Plainer numbers\n"
                         "      rules: [mini.play.take]\n      why: Words read better than digits here.\n")
    assert main(["--root", str(mini), "build", "--strict"]) == 0


def test_the_command_line_gives_its_sigpipe_back(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """main() takes SIGPIPE's default action only while it runs: a test worker that called it and later wrote to
    a pipe whose reader was gone (a killed PDF worker, a browser's driver) died of SIGPIPE, silently."""
    before = signal.getsignal(signal.SIGPIPE)
    assert before != signal.SIG_DFL  # Python's own: a closed pipe is an error, not the end of the process
    assert run(capsys, "--root", str(mini), "questions")[0] == 0
    assert signal.getsignal(signal.SIGPIPE) == before
    with pytest.raises(SystemExit):
        main(["--no-such-option"])
    assert signal.getsignal(signal.SIGPIPE) == before


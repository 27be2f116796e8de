"""docs/benchmarks.md is what benchmarks/page.py makes of benchmarks/results/ (and
coltsim/compile_times.json): regenerating it gives the same bytes, and every results file has
its section, so a measurement added without regenerating the page (or the page edited by hand)
fails here."""
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def page_module():
    spec = importlib.util.spec_from_file_location("benchmarks_page", ROOT / "benchmarks" / "page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmarks_page_is_up_to_date():
    page = page_module()
    assert (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8") == page.render(), \
        "docs/benchmarks.md is not what python benchmarks/page.py makes: run it and commit"


def test_every_results_file_is_on_the_page_and_every_line_is_json():
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
        assert rows, f"{path.name} is empty"
        assert f"`benchmarks/results/{path.name}`" in text, path.name


def test_every_transcribed_figure_says_where_and_when():
    """The files of one shape (a line with ``what``) carry their provenance."""
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "what" in row:
                assert {"command", "unit", "machine", "date"} <= row.keys(), (path.name, row)
                assert any(row.get(k) is not None for k in ("value", "ratio", "low")), \
                    (path.name, row)

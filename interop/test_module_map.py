#!/usr/bin/env python3
"""docs/architecture.md and README.md against the tree: the module map must be what
scripts/module-map generates from Package.swift, every library and executable target must have a
row in the table of purposes, and README's table of documents must name every file under docs/.
Each check is first run on a copy broken on purpose, so a pass means the check can fail."""
import importlib.machinery
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT  # noqa: E402


def load_module_map():
    path = os.path.join(ROOT, "scripts", "module-map")
    loader = importlib.machinery.SourceFileLoader("module_map", path)
    spec = importlib.util.spec_from_loader("module_map", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def documents_missing_from_readme(readme):
    """Files under docs/ that no row of README's table of documents links to."""
    rows = [line for line in readme.splitlines() if line.startswith("| [")]
    return [f"docs/{name}" for name in sorted(os.listdir(os.path.join(ROOT, "docs")))
            if not any(f"(docs/{name})" in row for row in rows)]


def main():
    mm = load_module_map()
    manifest = mm.load_manifest()
    with open(mm.DOC, encoding="utf-8") as f:
        doc = f.read()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()

    # The checks catch what they are for.
    first = next(t["name"] for t in manifest["targets"] if t["type"] == "regular")
    without_row = doc.replace(f"| `{first}` |", f"| {first} |")
    assert mm.missing_purposes(manifest, without_row) == [first], "a missing purpose row went unnoticed"
    stale = doc.replace(f"| `{first}` | library |", f"| `{first}` | executable |", 1)
    assert stale != doc and mm.check(manifest, stale), "a stale module map went unnoticed"
    first_doc = sorted(os.listdir(os.path.join(ROOT, "docs")))[0]
    assert documents_missing_from_readme(readme.replace(f"(docs/{first_doc})", "(gone)")) == [f"docs/{first_doc}"]

    problems = mm.check(manifest, doc)
    assert not problems, "docs/architecture.md: " + "; ".join(problems)
    missing = documents_missing_from_readme(readme)
    assert not missing, "README's table of documents lacks: " + ", ".join(missing)
    kinds = {}
    for t in manifest["targets"]:
        kinds[t["type"]] = kinds.get(t["type"], 0) + 1
    print(f"module map: {len(manifest['targets'])} targets ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}) "
          f"agree with docs/architecture.md; README lists all {len(os.listdir(os.path.join(ROOT, 'docs')))} documents")


if __name__ == "__main__":
    main()

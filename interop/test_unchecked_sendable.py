#!/usr/bin/env python3
"""Every `@unchecked Sendable` in Sources/ says why it is safe (issue 29, item 2): the line directly
above the declaration (after its doc comment and attributes) is a comment starting
`// @unchecked Sendable:` that names the lock, the owning thread, loop or queue, or the fields that
are immutable after init. The compiler checks plain `Sendable`; `@unchecked` switches that check off,
so the reason must be written where the next reader of the type will see it. Fails naming
file:line. The check is first run on sources broken on purpose, so a pass means it can fail."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT  # noqa: E402

SOURCES = os.path.join(ROOT, "Sources")
MARKER = "// @unchecked Sendable:"
UNCHECKED = re.compile(r"@unchecked\s+Sendable\b")
DECLARATION = re.compile(r"\b(class|struct|enum|actor|extension)\b")


def code_part(line):
    """The line without a trailing `//` comment (string literals holding `//` are not expected here)."""
    return line.split("//", 1)[0]


def missing_reasons(lines):
    """1-based numbers of the declaration lines that conform with `@unchecked Sendable` and have no
    `// @unchecked Sendable: <reason>` comment directly above them."""
    missing = []
    in_block = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if in_block:
            in_block = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            in_block = "*/" not in stripped
            continue
        if not UNCHECKED.search(code_part(line)):
            continue
        # A conformance list may wrap: the declaration is the nearest line above that opens one.
        decl = i
        while decl > 0 and i - decl < 5 and not DECLARATION.search(code_part(lines[decl])):
            decl -= 1
        above = decl - 1
        while above >= 0 and lines[above].strip().startswith("@"):  # @available, @MainActor, …
            above -= 1
        reasoned = False
        while above >= 0:
            comment = lines[above].strip()
            if not comment.startswith("//") or comment.startswith("///"):
                break
            if comment.startswith(MARKER) and len(comment[len(MARKER):].split()) >= 3:
                reasoned = True
                break
            above -= 1
        if not reasoned:
            missing.append(decl + 1)
    return missing


def swift_files():
    for directory, _, names in os.walk(SOURCES):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


def self_test(tree):
    """The check catches what it is for, on made-up sources and on the tree with one reason removed."""
    good = ["/// A box.", "// @unchecked Sendable: `value` is written once, before the semaphore is signalled.",
            "final class Box: @unchecked Sendable {", "}"]
    assert missing_reasons(good) == [], "a reasoned declaration was flagged"
    assert missing_reasons(["/// A box.", "final class Box: @unchecked Sendable {", "}"]) == [2], "a bare one went unnoticed"
    assert missing_reasons(["// @unchecked Sendable: `value` is written once.", "/// A box.",
                            "final class Box: @unchecked Sendable {"]) == [3], "a reason above the doc comment went unnoticed"
    assert missing_reasons(["// @unchecked Sendable:", "final class Box: @unchecked Sendable {"]) == [2], "an empty reason went unnoticed"
    wrapped = ["// @unchecked Sendable: the state is guarded by `lock`.", "@available(macOS 12.3, *)",
               "final class Output: NSObject, SCStreamOutput,", "                    @unchecked Sendable {"]
    assert missing_reasons(wrapped) == [], "attributes or a wrapped conformance list broke the check"
    assert missing_reasons(["/// Not `@unchecked Sendable`: a plain one.", "final class Plain: Sendable {"]) == []
    for path, lines in tree.items():
        for number, line in enumerate(lines):
            if line.strip().startswith(MARKER):
                broken = lines[:number] + lines[number + 1:]
                assert missing_reasons(broken) == [number + 1], f"removing {os.path.relpath(path, ROOT)}:{number + 1} went unnoticed"
                return
    raise AssertionError("no `// @unchecked Sendable:` comment found in Sources/")


def main():
    tree = {}
    for path in swift_files():
        with open(path, encoding="utf-8") as f:
            tree[path] = f.read().split("\n")
    self_test(tree)
    problems, total, files = [], 0, 0
    for path, lines in sorted(tree.items()):
        count = sum(1 for line in lines if UNCHECKED.search(code_part(line)) and not line.strip().startswith("//"))
        total += count
        files += count > 0
        problems += [f"{os.path.relpath(path, ROOT)}:{n}: `@unchecked Sendable` without a "
                     f"`{MARKER} <why it is safe>` line directly above" for n in missing_reasons(lines)]
    assert not problems, "\n" + "\n".join(problems)
    print(f"@unchecked Sendable: {total} declarations in {files} files, each with a `{MARKER}` reason")


if __name__ == "__main__":
    main()

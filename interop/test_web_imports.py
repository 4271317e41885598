#!/usr/bin/env python3
"""Walks every `import` of the web SDK and the pages under web/ and fails on an import circle or an
import of a file that is not there. A circle makes a module's exports undefined while its partner
loads (which one depends on who is imported first), so modules that apply events register with one
dispatcher instead of importing one another (web/srtc/channel-dispatch.js,
web/smeeting/engine-dispatch.js). Reads the files only: no JavaScript engine is needed."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT  # noqa: E402

WEB = os.path.join(ROOT, "web")
# The server serves web/ under /sdk/ (Sources/SRTCServer/Web/StaticFiles.swift).
SERVED_PREFIX = "/sdk/"

# `import … from 'x'`, `import 'x'`, `export … from 'x'` at the start of a statement, and `import('x')`.
STATIC = re.compile(r"""^\s*(?:import|export)\b[^'"`;]*?['"]([^'"]+)['"]""", re.M)
DYNAMIC = re.compile(r"""\bimport\(\s*['"]([^'"]+)['"]\s*\)""")
LINE_COMMENT = re.compile(r"^\s*//.*$", re.M)
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def specifiers(source):
    """The module specifiers a file imports (comments removed first: examples in them do not count)."""
    code = LINE_COMMENT.sub("", BLOCK_COMMENT.sub("", source))
    return [m.group(1) for m in STATIC.finditer(code)] + [m.group(1) for m in DYNAMIC.finditer(code)]


def resolve(importer, spec):
    """The file under web/ that `spec`, imported by `importer`, names; None for an outside URL."""
    if spec.startswith(SERVED_PREFIX):
        return os.path.normpath(os.path.join(WEB, spec[len(SERVED_PREFIX):]))
    if spec.startswith("./") or spec.startswith("../"):
        return os.path.normpath(os.path.join(os.path.dirname(importer), spec))
    return None


def import_graph(root):
    graph, missing = {}, []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".js"):
                continue
            path = os.path.normpath(os.path.join(folder, name))
            with open(path, encoding="utf-8") as f:
                targets = [resolve(path, s) for s in specifiers(f.read())]
            graph[path] = [t for t in targets if t]
            missing += [(path, t) for t in graph[path] if not os.path.isfile(t)]
    return graph, missing


def cycles(graph):
    """The circles of `graph`: each strongly connected component with more than one file, or a
    file importing itself (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph.get(start, [])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, []))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, []):
                    found.append(sorted(component))
    return found


def check_detector():
    """The detector finds a known circle and passes a known tree (so a pass below means something)."""
    circle = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert cycles(circle) == [["a", "b", "c"]], cycles(circle)
    assert cycles({"a": ["a"]}) == [["a"]]
    assert cycles({"a": ["b", "c"], "b": ["c"], "c": []}) == []
    assert specifiers("// import { x } from './gone.js';\nimport { y } from './here.js';\n"
                      "export { z } from '../z.js';\nconst m = await import('./lazy.js');") == \
        ["./here.js", "../z.js", "./lazy.js"]


def main():
    check_detector()
    graph, missing = import_graph(WEB)
    rel = lambda p: os.path.relpath(p, ROOT)  # noqa: E731
    assert not missing, "imports of missing files: " + "; ".join(f"{rel(a)} → {rel(b)}" for a, b in missing)
    found = cycles(graph)
    assert not found, "import circles under web/: " + "; ".join(" ↔ ".join(rel(p) for p in c) for c in found)
    edges = sum(len(v) for v in graph.values())
    print(f"web imports: {len(graph)} modules, {edges} imports, 0 circles")


if __name__ == "__main__":
    main()

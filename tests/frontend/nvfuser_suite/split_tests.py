"""Splits nvFuser's Python test modules into one script per test function,
the way a user pastes one test into FuserLab: the module's imports, its
top-level helpers and assignments, and that one test (with its decorators).

    python3 split_tests.py OUT_DIR MODULE.py [MODULE.py ...]

Each script is OUT_DIR/<module>__<test>.py. Then measure_reader.sh runs
`fuserlab-cli run` on each (CPU reference) and tallies the outcomes."""
import ast
import os
import sys


def split(path, out_dir):
    source = open(path).read()
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)

    def text(node):
        start = node.lineno
        if getattr(node, "decorator_list", None):
            start = min(d.lineno for d in node.decorator_list)
        return "".join(lines[start - 1:node.end_lineno])

    shared, tests = [], []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            tests.append(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            # unittest-style classes: each method becomes its own script with
            # the class around it (methods kept: only the named test).
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                    tests.append((node, item))
        else:
            shared.append(text(node))
    module = os.path.splitext(os.path.basename(path))[0]
    written = 0
    for test in tests:
        if isinstance(test, tuple):
            cls, method = test
            body = "".join(text(n) if not (isinstance(n, ast.FunctionDef) and
                                          n.name.startswith("test") and n is not method)
                           else "" for n in cls.body)
            header = "".join(lines[cls.lineno - 1:cls.body[0].lineno - 1])
            name = method.name
            script = header + body
        else:
            name = test.name
            script = text(test)
        with open(os.path.join(out_dir, f"{module}__{name}.py"), "w") as f:
            f.write("".join(shared) + "\n\n" + script)
        written += 1
    return written


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for path in sys.argv[2:]:
        print(f"{path}: {split(path, out_dir)} tests")


if __name__ == "__main__":
    main()

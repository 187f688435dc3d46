"""Finds the C++ extension: inside the package when installed (pip install .),
else on sys.path (a build tree: PYTHONPATH=build/python)."""
try:
    from . import _fuserlab as native  # noqa: F401
except ImportError:  # pragma: no cover - depends on the layout
    import _fuserlab as native  # noqa: F401

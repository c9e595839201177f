"""The package's source files: which file holds a module (used to hash code by meaning,
``schedsim.experiments.provenance``, and to version compiled code,
``schedsim.kernel.cache``)."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def module_path(root: Path, module: str) -> Path | None:
    """The file of ``schedsim.<...>`` module ``module`` under the package dir ``root`` (the
    package's own ``__init__.py`` for ``schedsim``; None when there is none)."""
    parts = module.split(".")[1:]
    for candidate in (root.joinpath(*parts).with_suffix(".py"),
                      root.joinpath(*parts, "__init__.py")):
        if parts and candidate.is_file():
            return candidate
    return root / "__init__.py" if not parts else None

"""The pre-commit hook's build backend: maturin, building in a temporary target folder.

pre-commit installs the hook by having pip build this checkout in pre-commit's own cache, where
Cargo would leave its release `target/` (hundreds of MB) beside every hook version it installs.
Built here, the target folder is a temporary one, removed once maturin has copied the wheel out
of it. A `CARGO_TARGET_DIR` that is set already is used as it is (a build cache kept on
purpose, as in the tests, which reuse their own release build).
"""

import os
import tempfile

import maturin
from maturin import (  # noqa: F401 (the rest of the PEP 517 interface, as maturin has it)
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)


def _in_temporary_target(build, *args):
    if os.environ.get("CARGO_TARGET_DIR"):
        return build(*args)
    with tempfile.TemporaryDirectory(prefix="ownerlint-build-") as target:
        os.environ["CARGO_TARGET_DIR"] = target
        try:
            return build(*args)
        finally:
            del os.environ["CARGO_TARGET_DIR"]


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _in_temporary_target(
        maturin.build_wheel, wheel_directory, config_settings, metadata_directory
    )


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _in_temporary_target(
        maturin.build_editable, wheel_directory, config_settings, metadata_directory
    )

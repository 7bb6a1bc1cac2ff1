"""Shared fixtures: where the TVMScript samples live; Hypothesis settings for a loaded
machine."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# On a loaded 2-core machine one example may take far longer than Hypothesis's 200 ms
# deadline, and generating data may look "too slow": neither is a failure of the code
# under test. Explicit @settings inherit these and set only what they name.
settings.register_profile("relax_ref", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("relax_ref")

REPO = Path(__file__).resolve().parents[1]
SAMPLES = Path(os.environ.get("RELAX_REF_SAMPLES", REPO.parent / "shared" / "tvmscript-samples"))


def sample_files() -> list[Path]:
    """Every TVMScript sample text (``*.py``) shipped in ../shared/tvmscript-samples."""
    if not SAMPLES.is_dir():
        return []
    return sorted(SAMPLES.glob("*.py"))


def example_files() -> list[Path]:
    """The example models of the Quick start and the benchmarks (examples/*.py)."""
    return sorted((REPO / "examples").glob("*.py"))


def model_files() -> list[Path]:
    """Every sample, then every example: the modules the pass tests run whole."""
    return sample_files() + example_files()


def sample_path(name: str) -> Path:
    """The sample file ``name``; the calling test is skipped when the samples are absent."""
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"sample {path} is absent")
    return path


def sample_manifest() -> list[dict]:
    """The samples' manifest.json (name, entry, runs with their npz file and expected
    outcome); empty when the samples are absent."""
    path = SAMPLES / "manifest.json"
    return json.loads(path.read_text()) if path.is_file() else []


def pytest_terminal_summary(terminalreporter):
    """Say once that the tests needing ../shared's samples did not run (they skip)."""
    if not SAMPLES.is_dir():
        terminalreporter.write_line(
            f"note: the TVMScript samples ({SAMPLES}) are absent, so the tests that read them "
            f"were skipped; set RELAX_REF_SAMPLES to their directory to run them",
            yellow=True)


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(f"samples directory {SAMPLES} is absent")
    return SAMPLES

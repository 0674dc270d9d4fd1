"""A Config that records which of its keys are read: what a stage's cache key and MLflow params must cover."""

from __future__ import annotations

import dataclasses
from typing import Any

from tritonrl.config import Config


def recorded(config: Config) -> tuple[Config, set[str]]:
    """The same config, and the set its reads go into (`section.key`, or `profile`).

    Whole-config copies (`to_dict`, as manifests and worker specs take) are not reads: they record nothing."""
    reads: set[str] = set()
    paused = [1]  # building the copies (their checks read every key) is not a read

    def section_copy(name: str, section: Any) -> Any:
        keys = {f.name for f in dataclasses.fields(section)}

        def __getattribute__(self, attr: str) -> Any:
            if attr in keys and not paused[0]:
                reads.add(f"{name}.{attr}")
            return object.__getattribute__(self, attr)

        kind = type(f"Recorded{type(section).__name__}", (type(section),), {"__getattribute__": __getattribute__})
        return kind(**{key: getattr(section, key) for key in keys})

    class RecordedConfig(Config):
        def __getattribute__(self, attr: str) -> Any:
            if attr == "profile" and not paused[0]:
                reads.add(attr)
            return object.__getattribute__(self, attr)

        def to_dict(self) -> dict[str, Any]:
            paused[0] += 1
            try:
                return Config.to_dict(self)
            finally:
                paused[0] -= 1

    sections = {
        f.name: section_copy(f.name, getattr(config, f.name))
        for f in dataclasses.fields(config)
        if dataclasses.is_dataclass(getattr(config, f.name))
    }
    copy = RecordedConfig(profile=config.profile, **sections)
    paused[0] = 0
    return copy, reads

"""Quiet the model hub's progress bars: weight loading and saving bars would drown the stages' own lines."""

from __future__ import annotations

import os
import sys


def quiet_progress_bars() -> None:
    """No weight loading/saving progress bars (transformers', huggingface_hub's).

    The variable (unless the user set it) reaches the processes started from here, e.g. training workers;
    transformers asks huggingface_hub when first imported, and has its own switch when already imported.
    """
    from huggingface_hub.utils import disable_progress_bars

    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging

        logging.disable_progress_bar()

"""TritonRL: train a language model to write fast, correct Triton kernels.

The library never imports Prefect; flows/ and tasks/ wrap it.
"""

__version__ = "0.1.0"

"""Benchmark loaders: each turns one benchmark file into an :class:`EvalDataset`."""

from .base import EvalConversation, EvalDataset, EvalQuestion, default_data_dir
from .locomo import load_locomo
from .longmemeval import load_longmemeval, session_of_id

__all__ = [
    "EvalConversation",
    "EvalDataset",
    "EvalQuestion",
    "default_data_dir",
    "load_locomo",
    "load_longmemeval",
    "session_of_id",
]

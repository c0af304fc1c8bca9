"""The conversational evaluation harness (LoCoMo, LongMemEval, your own chats): ``memdesk eval locomo|longmemeval|chats``.

Public surface:

- :func:`run_eval` (``memdesk.eval.run``): a whole run from arguments and settings, resumable;
  :func:`load_dataset`;
- :class:`EvalRun` (``memdesk.eval.runner``): the ingest-and-evaluate loop;
- :class:`QuestionResult` (``memdesk.eval.rows``): one ``results.jsonl`` line;
  :class:`EvalSummary`, :class:`MetricBlock` (``memdesk.eval.summary``): ``summary.json``;
- :class:`ResultsFile` (``memdesk.eval.results_file``): the resumable JSON-lines file both harnesses use;
- :class:`SystemSpec`, :func:`default_systems` (``memdesk.eval.systems``): the systems compared,
  ``memdesk-default`` among them;
- :func:`stratified_sample` (``memdesk.eval.sampling``): what ``--limit`` evaluates;
- :class:`Judge`, :class:`JudgeVerdict`, :class:`BenchmarkJudge` (``memdesk.eval.judging``);
- :func:`score_prediction`, :class:`AnswerScores` (``memdesk.eval.metrics``): the one answer scorer;
- the loaders in :mod:`memdesk.eval.datasets`;
- your own chats (``memdesk eval chats``, docs/eval-chats.md): :func:`load_chats` (``memdesk.eval.datasets.chats``),
  :func:`run_chats` (``memdesk.eval.chat_run``) over any Memory, :func:`summarize_chats` and :class:`ChatSummary`
  (``memdesk.eval.chat_summary``).

``import memdesk.eval`` loads no model and touches no file.
"""

from __future__ import annotations

from .chat_run import run_chats
from .chat_summary import ChatSummary, summarize_chats
from .datasets import EvalConversation, EvalDataset, EvalQuestion, load_locomo, load_longmemeval
from .datasets.chats import Chat, ChatSet, load_chats
from .judging import BenchmarkJudge, Judge, JudgeVerdict
from .metrics import AnswerScores, score_prediction
from .results_file import ResultsFile
from .rows import QuestionResult
from .run import load_dataset, run_eval
from .runner import EvalRun
from .sampling import stratified_sample
from .summary import EvalSummary, MetricBlock
from .systems import SystemSpec, default_systems

__all__ = [
    "AnswerScores",
    "BenchmarkJudge",
    "Chat",
    "ChatSet",
    "ChatSummary",
    "EvalConversation",
    "EvalDataset",
    "EvalQuestion",
    "EvalRun",
    "EvalSummary",
    "Judge",
    "JudgeVerdict",
    "MetricBlock",
    "QuestionResult",
    "ResultsFile",
    "SystemSpec",
    "default_systems",
    "load_chats",
    "load_dataset",
    "load_locomo",
    "load_longmemeval",
    "run_chats",
    "run_eval",
    "score_prediction",
    "stratified_sample",
    "summarize_chats",
]

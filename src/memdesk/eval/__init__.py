"""The conversational evaluation harness (LoCoMo, LongMemEval): ``memdesk eval locomo|longmemeval``.

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
- the loaders in :mod:`memdesk.eval.datasets`.

``import memdesk.eval`` loads no model and touches no file.
"""

from __future__ import annotations

from .datasets import EvalConversation, EvalDataset, EvalQuestion, load_locomo, load_longmemeval
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
    "load_dataset",
    "load_locomo",
    "load_longmemeval",
    "run_eval",
    "score_prediction",
    "stratified_sample",
]

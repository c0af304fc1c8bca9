"""How every memdesk command reports a memdesk error: one line on stderr (passwords masked), exit 2 for a
caller mistake (UsageError), 1 for a runtime failure."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator

import click

from ..errors import MemdeskError, UsageError
from ..text.redaction import mask_secrets


@contextmanager
def one_line_errors() -> Iterator[None]:
    try:
        yield
    except MemdeskError as e:
        message = " ".join(str(e).encode("utf-8", "backslashreplace").decode("utf-8").split())  # one line
        click.echo(f"error: {type(e).__name__}: {mask_secrets(message)}", err=True)
        sys.exit(2 if isinstance(e, UsageError) else 1)


class ErrorReportingGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        with one_line_errors():
            return super().invoke(ctx)


class ErrorReportingCommand(click.Command):
    def invoke(self, ctx: click.Context) -> Any:
        with one_line_errors():
            return super().invoke(ctx)

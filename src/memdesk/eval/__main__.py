"""``python -m memdesk.eval locomo|longmemeval ...``: the eval commands without the main CLI."""

from .eval_commands import eval_group

if __name__ == "__main__":
    eval_group(prog_name="python -m memdesk.eval")

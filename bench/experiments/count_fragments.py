"""Count stored records that do not stand alone, in a record listing of ``dump_records.py`` (measurement only; the
classes are read from each record's text, with the same function for every listing compared):

* ``verbless``: no finite verb, modal or instruction (:func:`memdesk.timeexpr.tense._has_verb`) in a record of at most
  eight words ("Blood test and electrocardiogram.", "6 bunches.", "for 18 November");
* ``continues``: opens with a word that continues a sentence before it ("which ...", "and ...", "Plus ...", "on ...");
* ``pronoun``: opens with a third-person pronoun or a demonstrative ("He starts ...", "She is ...", "It was ...").

    python bench/experiments/count_fragments.py records.jsonl [--list] [--all]   (current records only unless --all)
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter

from memdesk.timeexpr.tense import (
    _has_verb as has_verb,  # the tense reader's test of a clause
)

_CONTINUES = re.compile(r"^\W*(?:and|but|or|which|who|whom|whose|that|because|so|plus|for|on|in|at|to|with|from|till|until|then|as)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"^\W*(?:he|she|it|they|this|that|these|those|his|her|its|their|him|them)\b", re.IGNORECASE)
_SPEAKER = re.compile(r"^[\w' -]{1,40}: ")  # "Priya: ..." attribution prefix


def classes(text: str) -> list[str]:
    body = _SPEAKER.sub("", text.strip())
    out = []
    if len(body.split()) <= 8 and not has_verb(body):
        out.append("verbless")
    if _CONTINUES.match(body):
        out.append("continues")
    if _PRONOUN.match(body):
        out.append("pronoun")
    return out


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    if "--all" not in sys.argv:
        rows = [r for r in rows if r["current"]]
    counts: Counter[str] = Counter()
    any_ = 0
    for r in rows:
        cs = classes(r["text"])
        counts.update(cs)
        any_ += bool(cs)
        if cs and "--list" in sys.argv:
            print(",".join(cs), r["chat"], r["provenance"][0], repr(r["text"][:100]))
    print(json.dumps({"records": len(rows), "fragments": any_, **counts}))


if __name__ == "__main__":
    main()

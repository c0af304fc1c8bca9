"""Facts that supersede: a new memory that changes an attribute closes the older memories it replaces.

A record may carry the attribute claims its speaker made (``metadata["claims"]``, written by the rule extractor from
:func:`memdesk.conversation.facts.claims_of`). When new records arrive, :meth:`Supersession.resolve` looks, for each
claim, at the earlier memories of the same speaker and role in the same scope (the earlier records of the same batch,
and the ``k`` stored ones most similar to the new record, per memory type) and closes those it replaces:

* ``set`` (``I moved to Bath``): memories claiming another value of the same attribute and slot
  (``I live in Bristol``), or claiming it ended; the same value said again closes nothing, and a plan of
  no named kind (``I'm going to visit Ana``) is one more plan, closing none;
* ``end`` (``I don't live in Leeds anymore``, ``I sold my car``, ``Miso passed away``): memories
  setting that attribute (that value, when the claim names one for an attribute without slots);
* a generic ``negation`` end (``I no longer play the violin``, ``We don't keep bees anymore``): memories
  whose text holds every content word of what is negated and that negate nothing themselves (:func:`.endings.negates`);
* a ``change`` end (``I've left Halden Insurance``, ``the wedding is postponed``): memories that share a
  distinctive word with the clause that says it (:func:`changed_by`: a word in at most two of the
  memories compared);
* ``revise`` (``I changed my mind``, ``Actually, the party is on Sunday``): the most similar earlier
  memory that made a claim (cosine at least ``revise_min_score``), never one stating a partner, a home, a
  job, a role or a pet (a change of plan does not take back who comes along);
* ``update`` (a new value of what a memory measured: "the budget is up to £52,000", "we're down to 19
  hens", :mod:`memdesk.conversation.updates`): the memories holding another value of the same kind that are
  similar enough (``update_min_score``) and share the most words saying what the value is of, or whose value's
  structure says it when no closer memory is found (:mod:`.update_terms`: "Fridays now instead of Tuesdays");
* a value or a place stated anew with no word of change ("weigh-in today 5.4kg"): an ``update`` resolved with the
  stricter guards of :mod:`memdesk.conversation.restated`;
* what ends by the shape of its clause (:mod:`memdesk.conversation.endings`): an ``ended`` thing ("My Vespa
  was stolen", "Okafor Lettings has gone bust", "..., so no climbing", "I've handed the rota to Becky") and the
  value of any other end ("I'm not at Kestrel anymore") close every memory naming it (:func:`.endings.mentions`:
  never one item of a list); a ``reversal`` ("We take cheques again") closes what a memory negated ("no cheques");
* a new value of a named thing or a habit (:mod:`memdesk.conversation.topics`): ``topic`` ("the new kit is all
  red" closes "the kit is navy") and ``habit`` ("I'll take the Victoria line instead" closes "takes the Overground");
* attributes of :mod:`memdesk.conversation.attributes` (roles, vehicles, diet, reading, pets, verbs of stopping) as
  ``set`` / ``end`` claims like the others; a role's slot matches by its words, a person by the surname.

A memory is closed by claims only when every fact it states goes: one replaced, and each other one
replaced too, naming what was replaced or ended, or a job at an employer that went ("I'm a senior
architect now" leaves "works as a junior architect at Halden Studio" current: the workplace still holds).
A memory closed that says other things in the same statement is split instead (:mod:`.remainder`).

A record may also name the records it replaces (``metadata["replaces"]``: the LLM processor's UPDATE decisions,
:mod:`memdesk.conversation.decisions`): those are closed the same way, if they are stored, current memories of the
same speaker, role and scope (anything else named is ignored).

Closing is not deleting: the old memory gets ``valid_to`` (when the new one took effect, :mod:`.effective`) and
``superseded_by`` (the new record's id), and the store keeps the previous version in its history. Reads drop closed
memories by default (:class:`memdesk.filters.RecordFilter`). Records of one message never close each other.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .attributes import same_role
from .endings import mentions, negates, reverses, valued_end
from .topics import contrasts, rehabits, retopics
from .claims import claims_in, named_in
from .facts import Claim, same_value
from .effective import effective
from .narrowing import message_of, narrow, narrowings, statements_of
from .remainder import kept_part
from .replies import old_values, restates
from .restated import RESTATED_TOPIC, restated, with_restatement
from .update_terms import MEASURED, UpdateGates, closest_first, sole_holder, update_terms
from .updates import valueless
from ..errors import ConfigError
from ..records import MemoryRecord, MemoryType
from ..retrieval.stemming import stem
from ..store.base import Store

__all__ = ["Supersession", "claims_in", "named_in", "replaces"]

log = logging.getLogger(__name__)


_WORDS = re.compile(r"[a-z0-9]+")
#: Words too common to say what changed: function words, time words, chat words.
_COMMON = frozenset(
    """
    the a an my our your his her their its this that these those to of in at for on with and or but so from by as
    about into over after before again also just now new old still too very really much more most some any all
    is are was were be been being have has had do does did will would can could should may might must not no
    i me we us you he him she they them it there here what when where which who how then than because
    day days week weeks month months year years time today tomorrow yesterday morning evening night weekend
    monday tuesday wednesday thursday friday saturday sunday one two three four five six seven eight nine ten
    eleven twelve first second third last next january february march april may june july august september october november december
    instead anymore longer stopped quit left changed moved moving switched going gone back down up cut sold
    news good bad big sad great change plan plans decided decide got get getting make made take took
    work works working worked
    """.split()
)


def _terms(text: str, skip: frozenset[str] = frozenset()) -> set[str]:
    """The distinctive words of ``text``, Snowball-stemmed ("shifts" and "shift" meet; "Riverside" is no "river")."""
    return {stem(w) for w in _WORDS.findall(text.lower()) if len(w) > 2 and w not in _COMMON and w not in skip}


def changed_by(claim: Claim, record: MemoryRecord, df: dict[str, int]) -> int:
    """How many distinctive words a ``change`` claim ("I've left Halden Insurance") shares with ``record`` (in at
    most two of the candidate records, ``df``; never the speaker's name), 0 when it does not end what the record
    says: one shared word is needed, two for a weak change ("I'll be in the Glasgow office on Mondays instead")."""
    if claim.attribute != "change" or not claim.value:
        return 0
    names = _names(record.speaker)
    shared = [t for t in _terms(claim.value, names) & _terms(record.text(), names) if df.get(t, 0) <= 2]
    return len(shared) if len(shared) >= (2 if claim.slot == "weak" else 1) else 0


def _names(speaker: str | None) -> frozenset[str]:
    return frozenset(p.lower() for p in (speaker or "").split())


def _same_speaker(a: MemoryRecord, b: MemoryRecord) -> bool:
    """Same speaker, role and scope: the only memories a new one may close."""
    return a.speaker == b.speaker and a.role == b.role and a.scope == b.scope


def _same_key(new: Claim, old: Claim) -> bool:
    """One attribute and slot; a role's slot by its words ("deputy" is the "deputy principal")."""
    if new.attribute == old.attribute and new.attribute in ("role", "residence") and new.slot and old.slot:
        return same_role(new.slot, old.slot)  # a person's home by any of their words ("Agnieszka" / "sister agnieszka")
    return new.key == old.key


def _same(a: str | None, b: str | None, attribute: str) -> bool:
    """Same value; a person also by the surname ("Dr Penrose" is "Dr Kerry Penrose")."""
    if same_value(a, b):
        return True
    if attribute != "role" or not a or not b:
        return False
    x, y = a.split(), b.split()
    return len(x[-1]) > 2 and x[-1].lower() == y[-1].lower()


def replaces(new: Claim, old: Claim) -> bool:
    """Whether a memory claiming ``new`` supersedes an earlier one claiming ``old`` (``revise`` aside)."""
    if new.op == "revise" or old.op == "revise":
        return False
    if new.op == "set":
        if new.attribute == "plan" and not new.slot:
            return False  # "I'm going to visit Ana" is one more plan, not a change of another one
        return _same_key(new, old) and (old.op == "end" or not _same(new.value, old.value, new.attribute))
    # an end: of that attribute and slot (of that value, for an attribute without slots), or of a named thing
    if old.op != "set":
        return False
    if _same_key(new, old):
        return bool(new.slot) or new.value is None or _same(new.value, old.value, new.attribute)
    return not new.slot and new.value is not None and new.attribute == old.attribute and _same(new.value, old.value, new.attribute)


def _all_replaced(new: list[Claim], old: list[Claim]) -> bool:
    """Whether new claims replace a memory: one of its claims, and every other fact it states, either
    replaced (by attribute), naming what was replaced or ended, or a job at an employer that was replaced or
    ended ("I handed in my notice at Brennan" ends "lorry driver for Brennan Haulage"; "I'm a chartered
    engineer now" leaves "works as an engineer at Arup" current: the employer still holds)."""
    hit = [o for o in old if any(replaces(n, o) for n in new)]
    if not hit:
        return False
    gone = {o.attribute for o in hit}
    ended = [o.value for o in hit if o.value and o.attribute != "job"] + [n.value for n in new if n.op == "end" and n.value and n.attribute not in _TEXTUAL]
    facts = [o for o in old if o.op == "set" and o.attribute not in ("plan", *_TEXTUAL)]
    return all(
        o.attribute in gone or (o.attribute == "job" and "employer" in gone) or any(same_value(v, o.value) for v in ended) for o in facts
    )


_TEXTUAL = ("change", "update", "negation", "reversal", "topic", "habit", "contrast")


def _ends(claims: list[Claim], value: str) -> bool:
    """Whether a memory's own claims end ``value`` (a second "Kona was stolen" does not close the first)."""
    return any(valued_end(c) is not None and same_value(c.value, value) for c in claims)


#: Facts a revision ("I changed my mind", "we decided not to ...") never takes back: they change only when said.
_DURABLE = ("partner", "residence", "employer", "job", "role", "pet")


def _best_views(candidates: list[_Candidate], score: dict[int, int]) -> list[_Candidate]:
    """The candidates sharing the most words with an update or a change, and the statements inside them sharing any."""
    best, records = max(score.values(), default=0), [c.record for c in candidates]
    inside = {s.id for c in candidates if best and score[id(c)] == best for s in statements_of(c.record, records)}
    return [c for c in candidates if best and (score[id(c)] == best or score[id(c)] and c.record.id in inside)]


def _held(c: "_Candidate", siblings: list["_Candidate"]) -> tuple[int, str, str, float, str]:
    """A candidate as an update reads it: key, text, message, its message's best cosine, the valueless statements beside it."""
    return id(c), c.record.text(), message_of(c.record), max(s.score for s in siblings), valueless(s.record.text() for s in siblings if s is not c)


@dataclass
class _Candidate:
    record: MemoryRecord
    score: float  # cosine with the new record
    claims: list[Claim]
    row: int | None  # its row in the batch; None for a stored record
    restated: bool = False  # closed by a value stated anew alone (:mod:`.restated`)
    gone: list[Claim] = field(default_factory=list)  # the places of it a new place replaced (:func:`.restated.moved_place`)


class Supersession:
    """Finds and closes the memories that new records supersede.

    ``k``: stored records of each memory type compared with each new record that makes a claim;
    ``revise_min_score``: the least cosine for ``revise`` to take back an earlier memory;
    ``update_min_score``: the least cosine for an ``update`` (a new value: :mod:`.updates`) to close an earlier
    memory, ``update_name_min_score`` when the words they share are only names; ``measured_min_score``,
    ``measured_alone_score``, ``words_alone_score``: below it, by the structure of the values (:class:`.UpdateGates`).
    """

    def __init__(
        self, *, k: int = 50, revise_min_score: float = 0.3, update_min_score: float = 0.5, update_name_min_score: float = 0.65,
        restated_min_score: float = RESTATED_TOPIC, measured_min_score: float = 0.3, measured_alone_score: float = 0.4,
        words_alone_score: float = 0.45,
    ) -> None:
        if k < 1 or not all(0.0 <= s <= 1.0 for s in (revise_min_score, update_min_score, update_name_min_score, restated_min_score,
                                                        measured_min_score, measured_alone_score, words_alone_score)):  # fmt: skip
            raise ConfigError("supersession needs k >= 1 and minimum scores in [0, 1]")
        self.k, self.revise_min_score = k, revise_min_score
        self.gates = UpdateGates(
            update_min_score, update_name_min_score, restated_min_score, measured_min_score, measured_alone_score, words_alone_score
        )  # an update's least cosines (:func:`.update_terms.update_terms`)

    def resolve(
        self, store: Store, records: Sequence[MemoryRecord], vectors: np.ndarray
    ) -> list[tuple[MemoryRecord, np.ndarray]]:
        """Close what ``records`` (in the order said, one row of ``vectors`` each) supersede.

        Earlier records of the batch are closed in place (before they are written); the stored
        records to close come back as (closed copy, its vector), for :meth:`Store.replace` once the
        new records are written, with those narrowed (:mod:`.narrowing`: ``metadata["narrowed_by"]``, not
        closed, their old vector: the caller embeds their new text)."""
        closed: dict[str, MemoryRecord] = {}
        said = {r.id: with_restatement(r) for r in records}  # each record's claims, a value stated anew among them (:mod:`.restated`)
        for i, new in enumerate(records):
            claims, named = said[new.id], named_in(new)
            if not claims and not named:
                continue
            message = [r for r in records if r.provenance[:1] == new.provenance[:1]]  # the records of new's message
            beside = valueless(r.text() for r in message if r is not new)
            candidates, views = self._candidates(store, records, vectors, i, closed, claims) if claims else ([], [])
            victims = self._victims(candidates, claims, beside) if claims else []
            victims += self._named(store, records, new, named, closed, {v.record.id for v in victims})
            close, keep = narrowings(views, {v.record.id for v in victims})
            taken = {v.record.id for v in victims}
            victims = [v for v in victims if v.row is not None or v.record.id in close] + [_Candidate(r, 0.0, [], None) for r in views if r.id in close - taken]
            for r in views:
                if r.id in keep:
                    closed[r.id] = narrow(r, *keep[r.id], new.id)
            for victim in victims:
                old = victim.record
                until = effective(new, old)
                if victim.row is not None:
                    old.valid_to, old.superseded_by = until, new.id
                    continue
                # what changed: the claims of new's message, and the value new states anew when that is what closes it
                changed = [c for r in message for c in claims_in(r)] + ([c for c in said[new.id] if restated(c)] + victim.gone if victim.restated else [])
                split = kept_part(old, new, message, changed, victim.claims, until)  # :mod:`.remainder`
                closed |= {r.id: r for r in split or [old.model_copy(update={"valid_to": until, "superseded_by": new.id})]}
                for reply in self._replies(store, records, new, vectors[i], old, closed):  # replies that restate it go too
                    closed[reply.id] = reply.model_copy(update={"valid_to": until, "superseded_by": new.id})
        return [(r, store.get_vectors(r.memory_type, [r.metadata.get("split_from") or r.id])[0]) for r in closed.values()]  # split: its source's

    def _candidates(
        self, store: Store, records: Sequence[MemoryRecord], vectors: np.ndarray, i: int, closed: dict[str, MemoryRecord],
        claims: list[Claim],
    ) -> tuple[list[_Candidate], list[MemoryRecord]]:
        """Earlier current memories of the new record's speaker and role that made claims: the batch's, then the
        store's; and every current stored memory found, claims or not (the views :mod:`.narrowing` reads)."""
        new = records[i]
        owner = new.provenance[:1]
        # a generic negation may close a memory no attribute rule read ("Maya plays the violin")
        generic = any(c.attribute in ("change", "update", "reversal", "topic", "habit", "contrast") or valued_end(c) for c in claims)
        out, views = [], []
        for j, r in enumerate(records[:i]):
            if _same_speaker(r, new) and r.provenance[:1] != owner and r.superseded_by is None and ((claims := claims_in(r)) or generic):
                out.append(_Candidate(r, float(vectors[j] @ vectors[i]), claims, j))
        batch = {r.id for r in records}
        for memory_type in MemoryType:
            for hit in store.search(vectors[i], new.scope, memory_type, self.k, speaker=new.speaker):
                r = closed.get(hit.record.id, hit.record)  # a memory narrowed by an earlier record of the batch, as narrowed
                if r.id in batch or r.superseded_by is not None or not _same_speaker(r, new):
                    continue
                views.append(r)
                if (claims := claims_in(r)) or generic:
                    out.append(_Candidate(r, hit.score, claims, None))
        return out, views

    def _replies(
        self, store: Store, records: Sequence[MemoryRecord], new: MemoryRecord, vector: np.ndarray, old: MemoryRecord,
        closed: dict[str, MemoryRecord],
    ) -> list[MemoryRecord]:  # fmt: skip
        """Other speakers' current replies to ``old``'s message that restate what it said and ``new`` does not (:mod:`.replies`)."""
        typed, named = old_values(old.text(), claims_in(old), new.text())
        if not typed and not named:
            return []
        message, batch = message_of(old), {r.id for r in records}
        others = [
            hit.record for memory_type in MemoryType for hit in store.search(vector, new.scope, memory_type, self.k)
            if hit.record.id not in batch and hit.record.id not in closed and hit.record.superseded_by is None
            and (hit.record.speaker, hit.record.role) != (old.speaker, old.role) and restates(hit.record.text(), typed, named)
        ]  # fmt: skip
        # a reply to old's message, and every other view of that reply's words
        replies = {message_of(r) for r in others if message in r.provenance[1:]}
        return [r for r in others if message_of(r) in replies]

    def _named(
        self, store: Store, records: Sequence[MemoryRecord], new: MemoryRecord, named: list[str],
        closed: dict[str, MemoryRecord], taken: set[str],
    ) -> list[_Candidate]:  # fmt: skip
        """The stored records ``new`` names as replaced that it may close: current, same speaker, role and scope."""
        batch = {r.id for r in records}
        out = []
        for rid in dict.fromkeys(named):
            if rid in batch or rid in closed or rid in taken:
                continue
            old = store.get(rid)
            if old is None or old.superseded_by is not None or not _same_speaker(old, new):
                log.debug("record %s names %s as replaced: not a current memory of its speaker and role; ignored", new.id, rid)
                continue
            out.append(_Candidate(old, 1.0, [], None))
        return out

    def _updates(self, update: Claim, candidate: _Candidate, siblings: list[_Candidate], beside: str) -> set[str]:
        """What ``update`` shares with a candidate whose value it changes (:func:`.update_terms.update_terms`)."""
        _, text, _, score, context = _held(candidate, siblings)
        shared, gone = update_terms(update, text, _names(candidate.record.speaker), score, candidate.score, context, beside, self.gates)
        if restated(update):
            candidate.gone = [Claim(attribute="change", value=p, op="end") for p in gone]  # the places a split cuts (:mod:`.remainder`)
        return shared

    def _victims(self, candidates: list[_Candidate], claims: list[Claim], beside: str = "") -> list[_Candidate]:
        """The candidates ``claims`` close; ``beside``: the statements of their message that give no value."""
        df: dict[str, int] = {}
        if any(n.attribute == "change" for n in claims):
            for c in candidates:
                for t in _terms(c.record.text()):
                    df[t] = df.get(t, 0) + 1
        ends = [v for n in claims if (v := valued_end(n))]
        victims = [
            c for c in candidates
            if _all_replaced(claims, c.claims) or any(negates(n, c.record) for n in claims) or any(mentions(v, c.record.text()) and not _ends(c.claims, v) for v in ends)
            or any(reverses(n, c.record.text()) or retopics(n, c.record.text()) or rehabits(n, c.record.text()) or contrasts(n, c.record.text()) for n in claims)
        ]  # fmt: skip
        for update in (n for n in claims if n.attribute == "update"):
            # the memories whose value it changes, close enough in meaning, sharing the most words saying what the value
            # is of ("budget up to £52,000": the budget, not the roofer's date), borrowed from the statements of their
            # message ("The footbridge is delayed." beside "The new finish date is November.")
            siblings: dict[str, list[_Candidate]] = {}
            for c in candidates:
                siblings.setdefault(message_of(c.record), []).append(c)
            shared = {id(c): self._updates(update, c, siblings[message_of(c.record)], beside) for c in candidates}
            shared = closest_first(shared)  # found below update_min_score: only when no closer memory is
            if candidates and not any(shared.values()):  # by structure alone: the one statement with a value of its kind and a word of it
                shared |= sole_holder(update, [_held(c, siblings[message_of(c.record)]) for c in candidates], _names(candidates[0].record.speaker), beside, self.gates)
            best = [c for c in _best_views(candidates, {k: len(v) for k, v in shared.items()}) if c not in victims]
            if best and all(shared[id(c)] == {MEASURED} for c in best):  # a value measured alike, no word of what it is of:
                top = max(best, key=lambda c: c.score)  # the one statement closest in meaning, with its views
                best = [c for c in best if message_of(c.record) == message_of(top.record)]
            for c in best if restated(update) else []:
                c.restated = True
            victims += best
        # a change said as a negation ("I don't do the Sunday long walk anymore") is the negation's to close: by every
        # word it negates, not by one shared word ("long" / "long shift")
        negated = [g.value for g in claims if g.attribute == "negation" and g.value]
        for change in (n for n in claims if n.attribute == "change" and not any(v in (n.value or "") for v in negated)):
            # the memories that share the most distinctive words with what changed ("Igor switched from
            # handball": the handball club, not where Igor lives)
            overlap = {id(c): changed_by(change, c.record, df) for c in candidates}
            victims += [c for c in _best_views(candidates, overlap) if c not in victims]
        # a revision takes back a plan or a choice, not who one is with, where one lives or works; said with a claim of
        # a named attribute that closed nothing ("correction: I eat meat again"), nothing else
        revisable = [c for c in candidates if not any(o.attribute in _DURABLE for o in c.claims)]
        named = any(n.op != "revise" and n.attribute in (*_DURABLE, "diet", "liking", "favourite", "possession", "reading", "hobby") for n in claims)
        if victims or named or not any(n.op == "revise" for n in claims) or not revisable:
            return victims
        best = max(revisable, key=lambda c: c.score)
        if best.score < self.revise_min_score:
            return []
        # the memory taken back, with every view of the same message
        return [c for c in candidates if c.record.provenance[:1] == best.record.provenance[:1]]

"""RuleExtractor: attributed, time-anchored records with provenance, on chats written for the project and on LoCoMo dev turns (read at test time, never quoted)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.router import RuleRouter
from memdesk.errors import ConfigError
from memdesk.records import EpisodicRecord, Message, ProceduralRecord, RouteMask, Scope, SemanticRecord

SCOPE = Scope(user_id="u1", run_id="r1")
TS = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
ALL = RouteMask(episodic=True, semantic=True, procedural=True)


def msg(text: str, speaker: str = "Priya", mid: str = "D1:3", *, ts: datetime | None = TS, caption: str | None = None) -> Message:
    return Message(id=mid, speaker=speaker, content=text, timestamp=ts, image_caption=caption)


def utt(text: str, speaker: str = "Priya", mid: str = "D1:3", *, ts: datetime | None = TS, caption: str | None = None,
        context: tuple[Message, ...] = ()) -> Utterance:  # fmt: skip
    return Utterance(message_id=mid, message=msg(text, speaker, mid, ts=ts, caption=caption), scope=SCOPE, context=list(context))


def routed(u: Utterance, **kw) -> list:
    return RuleExtractor(**kw).extract(u, RuleRouter().route(u))


def body(r) -> str:
    return r.body()


# --- synthetic -----------------------------------------------------------------------------------


def test_greeting_keeps_nothing() -> None:
    u = utt("Hi Tom! Lovely to hear from you! How is everything?")
    assert RuleRouter().route(u).bits == 0
    assert RuleExtractor().extract(u, RouteMask()) == []


def test_narrated_event_is_attributed_and_anchored() -> None:
    recs = routed(utt("I went to a pottery workshop yesterday and it was so inspiring."))
    ep = [r for r in recs if isinstance(r, EpisodicRecord)]
    assert ep, recs
    r = ep[0]
    assert r.summary.startswith("Priya went to a pottery workshop yesterday (2023-05-07)")
    assert r.temporal_anchor == "2023-05-07"
    assert r.event_time == datetime(2023, 5, 7, tzinfo=timezone.utc)
    assert r.speaker == "Priya"
    assert r.provenance == ["D1:3"]
    assert r.scope == SCOPE
    assert r.metadata["said_at"] == TS.isoformat()
    assert r.metadata["time_expressions"][0]["text"] == "yesterday"
    assert r.summary.startswith(r.title) and len(r.title) <= 80


def test_without_time_expression_the_anchor_is_the_message_date() -> None:
    (r,) = routed(utt("I'm keen on nursing or working in elderly care."))
    assert isinstance(r, SemanticRecord)
    assert r.temporal_anchor == "2023-05-08" and r.event_time == TS
    assert r.fact == "Priya is keen on nursing or working in elderly care."


def test_without_timestamp_nothing_is_resolved() -> None:
    recs = routed(utt("I went to the pottery workshop yesterday.", ts=None))
    assert recs and all(r.temporal_anchor is None and r.event_time is None for r in recs)
    assert "yesterday" in body(recs[0]) and "(" not in body(recs[0])


def test_preference_becomes_a_semantic_fact_in_third_person() -> None:
    recs = routed(utt("I really love gardening, it's my favorite pastime.", speaker="Tom"))
    facts = [r.fact for r in recs if isinstance(r, SemanticRecord)]
    assert facts == ["Tom really loves gardening, it's Tom's favorite pastime."]


def test_second_person_becomes_the_addressee() -> None:
    ctx = (msg("I'm thinking of teaching.", "Priya", "D1:11"),)
    recs = routed(utt("You'd need a teaching degree first.", speaker="Tom", mid="D1:12", context=ctx))
    said = [r for r in recs if body(r).startswith("Priya would need a teaching degree first.")]
    assert said and all(r.speaker == "Tom" and "Tom:" in r.embed_text() for r in said)  # whose words: a field, not the text


def test_advice_becomes_procedural_and_keeps_you() -> None:
    recs = routed(utt("You should stretch before running. Make sure to drink water after.", speaker="Ravi"))
    procs = [r for r in recs if isinstance(r, ProceduralRecord)]
    assert procs
    p = procs[0]
    assert "You should stretch before running" in p.content and not p.content.startswith("Ravi: ")
    assert p.speaker == "Ravi" and p.embed_text().startswith("Ravi: ")
    assert p.content.startswith(p.title)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Been a hectic month at the bakery.", "It has been a hectic month at the bakery."),
        ("Been a while since the regatta!", "It has been a while since the regatta!"),
        ("Been a crazy few weeks.", "It has been a crazy few weeks."),
        ("Been a lifeguard for six summers.", "Priya has been a lifeguard for six summers."),
        ("Been a fan of that band since school.", "Priya has been a fan of that band since school."),
        # a lead-in before a colon is no verb; a shouted verb keeps its case
        ("Unrelated: my bike got stolen.", "Unrelated: my bike got stolen."),
        ("Sorted: the boiler works again.", "Sorted: the boiler works again."),
        ("PASSED THE EXAM!!", "Priya PASSED THE EXAM!!"),
    ],
)
def test_a_sentence_without_its_subject_gets_the_right_one(text: str, expected: str) -> None:
    """"Been a hectic month" is said of the time ("it has been"), "been a lifeguard" of the speaker."""
    from memdesk.conversation.render import _restore_subject

    assert _restore_subject(text, "Priya") == expected


def test_image_caption_is_used() -> None:
    recs = routed(utt("Take a look at this.", speaker="Tom", caption="a photo of a watercolour of boats in a harbour"))
    assert recs
    assert any(body(r) == "Tom shared an image: a photo of a watercolour of boats in a harbour" for r in recs)
    assert all(r.provenance == ["D1:3"] for r in recs)


def test_short_answer_carries_the_question() -> None:
    q = msg("Have you ever been to Lisbon?", "Tom", "D1:13")
    recs = routed(utt("Yes, twice!", mid="D1:14", context=(q,)))
    ctx = [r for r in recs if r.metadata["view"] == "context"]
    assert len(ctx) == 1
    # the record holds Priya's words only; the question shapes how it is found (its embed text)
    assert body(ctx[0]) == "Yes, twice!"
    assert ctx[0].embed_text() == "Tom asked: Has Priya ever been to Lisbon? Priya: Yes, twice!"
    assert ctx[0].provenance == ["D1:14", "D1:13"]


def test_context_views_can_be_limited() -> None:
    prev = msg("I sketched the harbour last week.", "Tom", "D1:13")
    u = utt("The shading on the boats is in charcoal.", mid="D1:14", context=(prev,))
    assert any(r.metadata["view"] == "context" for r in routed(u))
    assert not any(r.metadata["view"] == "context" for r in routed(u, context_views="questions"))
    q = msg("Did you like it?", "Tom", "D1:13")
    u2 = utt("The shading on the boats is in charcoal.", mid="D1:14", context=(q,))
    assert not any(r.metadata["view"] == "context" for r in routed(u2, context_views="none"))


def test_question_only_turn() -> None:
    ctx = (msg("I'm thinking of a career change.", "Priya", "D1:9"),)
    recs = routed(utt("Should I tell my manager about the new roles?", speaker="Tom", mid="D1:10", context=ctx))
    assert [body(r) for r in recs] == ["Tom asked Priya: Should Tom tell Tom's manager about the new roles?"]
    # a question about the person asked notes nothing of the asker: the answer, in their turn, is the memory
    assert routed(utt("How have you been feeling about it lately?", speaker="Tom", mid="D1:11", context=ctx)) == []
    assert routed(utt("What sort of roles are you looking at?", speaker="Tom", mid="D1:13", context=ctx))  # about something
    assert routed(utt("Can you recommend a book on career changes?", speaker="Tom", mid="D1:12", context=ctx))  # a request stays


def test_mask_is_respected() -> None:
    u = utt("I went hiking last week. I love the mountains. You should try it, make sure to bring water!")
    assert {r.type for r in RuleExtractor().extract(u, ALL)} == {"episodic", "semantic", "procedural"}
    only_sem = RuleExtractor().extract(u, RouteMask(semantic=True))
    assert only_sem and {r.type for r in only_sem} == {"semantic"}
    assert RuleExtractor().extract(u, RouteMask()) == []


def test_views_of_a_multi_sentence_turn() -> None:
    u = utt("Last weekend I swam a charity mile for the hospice. It was really rewarding. Swimming clears my head.", speaker="Tom")
    recs = routed(u, context_views="none")
    views = [r.metadata["view"] for r in recs]
    assert views.count("sentence") == 2 and views.count("turn") == 1
    race = next(r for r in recs if "mile" in body(r) and r.metadata["view"] == "sentence")
    assert body(race) == "Last weekend (weekend of 2023-05-06) Tom swam a charity mile for the hospice. It was really rewarding."
    assert race.temporal_anchor == "weekend of 2023-05-06"
    love = next(r for r in recs if "Swimming" in body(r) and r.metadata["view"] == "sentence")
    assert love.temporal_anchor == "2023-05-08"  # anchors come from a view's own sentences


def test_lengths_are_capped() -> None:
    long = " ".join(f"I visited museum number {i} with my family and we loved the exhibits there." for i in range(20))
    recs = RuleExtractor(max_fact_chars=120, max_summary_chars=150, max_turn_chars=200).extract(utt(long), ALL)
    assert recs
    for r in recs:
        cap = {"turn": 200}.get(r.metadata["view"], 120 if isinstance(r, SemanticRecord) else 150)
        assert len(body(r)) <= cap
        assert not body(r).endswith("…")  # whole sentences: only a sentence longer than its cap is cut


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigError):
        RuleExtractor(max_fact_chars=5)
    with pytest.raises(ConfigError):
        RuleExtractor(context_views="sometimes")  # type: ignore[arg-type]


def test_dropped_subject_gets_the_speaker() -> None:
    recs = routed(utt("Sold my bike yesterday, so I'm gonna buy a faster one.", speaker="Ravi"))
    # a sale ends a possession: the statement is stored apart from the plan (each can be closed alone)
    assert [body(r) for r in recs] == ["Ravi sold Ravi's bike yesterday (2023-05-07).", "Ravi is gonna buy a faster one."]


_WORDS = st.sampled_from(
    "I you my your we went love hate yesterday last week should make sure the a painting kids ! ? . , "
    "Tom Priya is was have been to go try always tips first then".split()
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_WORDS, max_size=25).map(" ".join))
def test_every_record_is_named_and_sourced(text: str) -> None:
    prev = msg("What did you do?", "Tom", "D1:2")
    u = utt(text, context=(prev,))
    recs = routed(u)
    assert recs == [] or RuleRouter().route(u).bits
    for r in recs:
        assert r.provenance[0] == "D1:3" and r.speaker == "Priya"
        assert "Priya" in r.embed_text()
        assert r.temporal_anchor and r.event_time is not None
        if not isinstance(r, SemanticRecord):
            assert body(r).startswith(r.title)
    assert [r.embed_text() for r in recs] == [r.embed_text() for r in routed(u)]  # deterministic


# --- LoCoMo dev turns (read from the data set at test time; no turn is quoted here) -------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _locomo(path: str) -> list[dict]:
    return json.loads(Path(path).read_text())


def locomo_session(path: Path, session: int, sample: int = 0, context: int = 3) -> list[Utterance]:
    item = _locomo(str(path))[sample]
    conv = item["conversation"]
    ts = datetime.strptime(conv[f"session_{session}_date_time"], "%I:%M %p on %d %B, %Y")
    msgs = [
        Message(id=t["dia_id"], speaker=t["speaker"], content=t["text"], timestamp=ts, image_caption=t.get("blip_caption"))
        for t in conv[f"session_{session}"]
    ]
    scope = Scope(user_id=item["sample_id"])
    return [Utterance(message_id=m.id, message=m, scope=scope, context=msgs[max(0, i - context) : i]) for i, m in enumerate(msgs)]  # type: ignore[misc]


def _session_start(path: Path, session: int, sample: int = 0) -> datetime:
    conv = _locomo(str(path))[sample]["conversation"]
    return datetime.strptime(conv[f"session_{session}_date_time"], "%I:%M %p on %d %B, %Y")


def test_locomo_session_one(locomo_path: Path) -> None:
    us = {u.message_id: u for u in locomo_session(locomo_path, 1)}
    said = _session_start(locomo_path, 1)
    assert routed(us["D1:1"]) == []  # the opening greeting keeps nothing
    # D1:3 narrates an event of the day before, in the first person: attributed, anchored, dated in the text
    speaker = us["D1:3"].message.speaker
    day_before = (said - timedelta(days=1)).date().isoformat()
    ev = [r for r in routed(us["D1:3"]) if isinstance(r, EpisodicRecord) and r.provenance == ["D1:3"]]
    assert ev and ev[0].temporal_anchor == day_before
    assert ev[0].summary.startswith(f"{speaker} went ") and f"({day_before})" in ev[0].summary
    # D1:12 shares an image: its caption is stored, attributed
    d12 = us["D1:12"]
    assert any(f"{d12.message.speaker} shared an image: {d12.message.image_caption}" in r.body() for r in routed(d12))
    # D1:14 answers D1:13 and says when it happened ("last year")
    d14 = routed(us["D1:14"])
    assert any(r.temporal_anchor == str(said.year - 1) for r in d14)
    ctx = [r for r in d14 if r.metadata["view"] == "context"]
    # the question it answers shapes its embedding, never its text (one speaker's words per record)
    assert ctx and ctx[0].provenance == ["D1:14", "D1:13"] and ctx[0].embed_text().startswith(f"{us['D1:13'].message.speaker} asked: ")
    assert not ctx[0].body().startswith(f"{us['D1:13'].message.speaker} asked: ")


def test_locomo_processor_over_a_session(locomo_path: Path) -> None:
    session = locomo_session(locomo_path, 2)
    processed = RoutedExtraction(RuleRouter(), RuleExtractor()).process(session)
    ids = {u.message_id for u in session}
    assert len(processed) == len(session)
    for u, p in zip(session, processed, strict=True):
        assert (p.mask.bits == 0) == (p.records == [])
        for r in p.records:
            assert r.provenance[0] == u.message_id and set(r.provenance) <= ids
            assert r.speaker == u.message.speaker and u.message.speaker in r.embed_text()
    # D2:1 names an event of "last Saturday": anchored to the Saturday before the session date
    said = _session_start(locomo_path, 2).date()
    saturday = said - timedelta(days=(said.weekday() - 5) % 7 or 7)
    assert any(r.temporal_anchor == saturday.isoformat() for r in processed[0].records)


def test_records_are_found_by_their_question(minilm) -> None:
    """With the real embedder, a question naming the person finds the attributed event first."""
    chat = [
        ("Tom", "Hi Priya! How was your week?"),
        ("Priya", "I went to a pottery workshop yesterday and it was so inspiring."),
        ("Tom", "That sounds lovely. I started a new running plan."),
        ("Priya", "I'm keen on nursing or working in elderly care."),
        ("Tom", "You'd be a great nurse! My sister is a midwife."),
    ]
    msgs = [Message(id=f"m{i}", speaker=s, content=t, timestamp=TS) for i, (s, t) in enumerate(chat)]
    records = [r for i, m in enumerate(msgs) for r in routed(Utterance(message_id=m.id, message=m, scope=SCOPE, context=msgs[:i]))]
    vecs = minilm.embed([r.embed_text() for r in records])
    q = minilm.embed_one("When did Priya go to the pottery workshop?")
    best = records[int(np.argmax(vecs @ q))]
    assert "m1" in best.provenance and best.temporal_anchor == "2023-05-07"


# --- records a person would write (issue 12) ------------------------------------------------------

LEO_CTX = (Message(id="c0", speaker="Leo", content="How are things?", timestamp=TS),)


def texts(u: Utterance) -> list[str]:
    return [r.text() for r in routed(u)]


def test_rewrites_stay_grammatical_or_keep_the_first_person() -> None:
    recs = texts(utt("I now live in Clifton. I no longer work in Leeds.", speaker="Priya"))
    assert "Priya now lives in Clifton." in recs and "Priya no longer works in Leeds." in recs
    kept = texts(utt("I myself prefer the coast.", speaker="Priya"))
    assert kept == ["I myself prefer the coast."]


def test_abbreviations_do_not_split_a_sentence() -> None:
    recs = texts(utt("I'm a nurse at St. Anne's hospital in York. Dr. Rao is my boss.", speaker="Priya"))
    assert "Priya is a nurse at St. Anne's hospital in York." in recs
    assert "Dr. Rao is Priya's boss." in recs
    assert not any(r.endswith(("St.", "Dr.")) for r in recs)


def test_a_weekday_with_a_date_is_anchored_to_the_date() -> None:
    recs = routed(utt("Are we still on for the fair on Saturday 13 July?", ts=datetime(2024, 4, 21, tzinfo=timezone.utc)))
    assert recs and all(r.temporal_anchor == "2024-07-13" for r in recs)


def test_a_planned_weekday_is_the_next_one() -> None:
    sunday = datetime(2024, 4, 21, tzinfo=timezone.utc)
    (ep, *_) = [r for r in routed(utt("I'll drive up on Friday evening.", ts=sunday)) if isinstance(r, EpisodicRecord)]
    assert ep.temporal_anchor == "2024-04-26"


def test_a_duration_after_a_past_verb_is_not_a_date() -> None:
    recs = routed(utt("I took a course in 2015 and passed in two weeks."))
    assert {r.temporal_anchor for r in recs} == {"2015"}


def test_recipe_steps_are_procedural() -> None:
    steps = [
        "First, melt 50 g of butter in a pan. Then whisk in two eggs.",
        "Fold in the flour and leave the batter to rest for ten minutes.",
        "If it gets too thick, add a splash of milk.",
        "2. Bake at 180 degrees for 25 minutes.",
    ]
    for text in steps:
        recs = routed(utt(text, speaker="Priya"))
        assert recs and all(isinstance(r, ProceduralRecord) for r in recs if r.metadata["view"] != "context"), text


def test_a_big_step_is_not_an_instruction() -> None:
    assert not RuleRouter().route(utt("That's a big step for you.")).procedural


@pytest.mark.parametrize("filler", ["I bet!", "Sounds like a plan!", "That's adorable.", "Of course they did.", "Quick question."])
def test_phatic_filler_is_not_stored(filler: str) -> None:
    assert routed(utt(filler, context=LEO_CTX)) == []


def test_a_verbless_fragment_lives_only_in_the_context_view() -> None:
    recs = routed(utt("A bit. I've lived in York my whole life.", context=(Message(id="c0", speaker="Leo", content="Are you nervous?", timestamp=TS),)))
    views = {(r.metadata["view"], r.text()) for r in recs}
    assert not any(text.endswith("A bit.") for view, text in views if view == "sentence")
    assert any(view == "context" and "A bit." in text for view, text in views)


def test_each_record_writes_its_text_once() -> None:
    recs = routed(utt("I went to a pottery class yesterday and it was great. My teacher is Ana."))
    titled = [r for r in recs if getattr(r, "title", "")]
    assert titled
    for r in titled:
        assert r.text() == r.body() and r.text().count(r.title) == 1
        assert r.embed_text() == r.text()  # what is embedded is what is shown
    llm = EpisodicRecord(scope=SCOPE, title="Pottery class", summary="Priya went to a pottery class.")
    assert llm.text() == "Pottery class: Priya went to a pottery class."


@pytest.mark.parametrize(
    "text",
    ["我昨天搬到了上海。", "昨日、大阪に引っ越しました。", "עברתי לגור בחיפה בשבוע שעבר.", "انتقلت إلى عمّان الشهر الماضي.",
     "मैं पिछले महीने पुणे चला गया।", "Я переехал в Казань в прошлом месяце.", "Me mudé a Sevilla el mes pasado."],
)
def test_other_languages_are_kept_verbatim_and_attributed(text: str) -> None:
    u = utt(text, speaker="José")
    mask = RuleRouter().route(u)
    assert mask.bits, text
    (r,) = RuleExtractor().extract(u, mask)
    assert r.text() == text and r.speaker == "José" and r.embed_text() == f"José: {text}"
    assert r.metadata["view"] == "verbatim" and r.provenance == ["D1:3"]


def test_a_long_message_in_another_language_is_kept_whole_in_chunks() -> None:
    text = "我昨天搬到了上海。" * 60
    u = utt(text, speaker="Li")
    recs = RuleExtractor().extract(u, RuleRouter().route(u))
    assert len(recs) > 1 and "".join(r.text().removeprefix("Li: ").replace(" ", "") for r in recs) == text


def test_without_a_timestamp_time_is_read_against_the_add_time() -> None:
    added = datetime(2024, 6, 10, tzinfo=timezone.utc)
    u = Utterance(message_id="m1", message=msg("I moved to Porto last month.", ts=None), scope=SCOPE, reference_time=added)
    (r, *_) = routed(u)
    assert r.temporal_anchor == "May 2024"
    assert r.metadata["time_reference"] == "added_at" and r.metadata["added_at"] == added.isoformat()
    (s, *_) = routed(utt("I moved to Porto last month."))
    assert s.metadata["time_reference"] == "said_at"


def test_markdown_is_read_as_a_person_would_read_it() -> None:
    """A reply written in Markdown: no record is a bare heading or keeps the marks; a heading and a
    lead-in travel with the line they introduce."""
    text = (
        "Here is what to bring:\n\n"
        "### **Before the hike**\n"
        "* Pack two litres of water per person.\n"
        "* Check the **weather** for the afternoon.\n\n"
        "**After the hike**\n"
        "- Stretch your calves for five minutes."
    )
    recs = routed(utt(text, speaker="assistant", mid="A1:1"))
    bodies = [body(r) for r in recs]
    assert bodies and not any(m in b for b in bodies for m in ("**", "###", "* ", "- Stretch"))
    assert any("Before the hike: Pack two litres of water" in b for b in bodies), bodies
    assert any("After the hike: Stretch" in b for b in bodies), bodies
    assert not any(b.rstrip(":").endswith(("Before the hike", "After the hike")) for b in bodies), bodies


@pytest.mark.parametrize(
    "text",
    ["Merci beaucoup, à bientôt !", "¡Muchas gracias, hasta mañana!", "Danke schön!", "Děkuji moc!", "Grazie mille, Ana!",
     "Obrigada, boa noite!"],
)
def test_thanks_or_a_greeting_in_another_language_makes_no_record(text):
    from memdesk.conversation.lexicon import phatic_elsewhere

    assert phatic_elsewhere(text, ["Ana"])
    assert RuleExtractor().extract(utt(text, "Ana"), ALL) == []


@pytest.mark.parametrize(
    "text,fact",
    [("Dzień dobry. The boiler in the cellar finally died this week.", "boiler"),
     ("Buenas tardes! I start at the bakery on Calle Mayor next month.", "bakery"),
     ("The trial shift went well. Merci beaucoup!", "trial shift")],
)
def test_a_greeting_in_another_language_inside_an_english_turn_is_no_part_of_a_record(text, fact):
    bodies = [body(r) for r in RuleExtractor().extract(utt(text, "Ana"), ALL)]
    assert bodies and all(fact in b for b in bodies), bodies
    assert not any(w in b for b in bodies for w in ("Dzień", "Buenas", "Merci")), bodies


@pytest.mark.parametrize("text", ["Salut, Téo !", "Grazie, tesoro.", "Kia ora, Wiremu!", "top, danke", "Merci, great idea."])
def test_a_greeting_with_a_name_or_word_not_yet_known_is_small_talk(text):
    # the first message of a chat names someone no earlier turn named; a term of address or an interjection beside thanks
    from memdesk.conversation.lexicon import phatic_elsewhere

    assert phatic_elsewhere(text, [])


@pytest.mark.parametrize("text", ["Yes, Thursday.", "Thanks, Lisbon was lovely.", "Merci, 14h.", "Gracias, Pedro llega mañana.", "Mon: RSVP."])
def test_a_greeting_beside_a_clause_or_an_answer_is_not_small_talk(text):
    from memdesk.conversation.lexicon import phatic_elsewhere

    assert not phatic_elsewhere(text, [])


@pytest.mark.parametrize("text", ["Je déménage à Lyon en mai.", "Mañana tengo cita con el dentista.", "Danke, ich ziehe nach Graz."])
def test_a_statement_in_another_language_is_not_small_talk(text):
    from memdesk.conversation.lexicon import phatic_elsewhere

    assert not phatic_elsewhere(text, ["Ana"])


@pytest.mark.parametrize(
    "text",
    ["рахмет!", "Salem!", "perfekt. tack för all hjälp", "ok tack så mycket för hjälpen", "Dziękuję for all the help these months.",
     "Kiitos paljon!", "Gracias por todo", "Merci pour tout !", "Diolch!", "Good morning o"],
)
def test_thanks_for_the_help_in_any_of_the_known_languages_makes_no_record(text):
    assert RuleExtractor().extract(utt(text, "Ana"), ALL) == [], text


@pytest.mark.parametrize(
    "text,fact",
    [("Tack för att du hjälpte Lina med flytten till Malmö.", "Malmö"), ("Merci, je commence chez Dufour le 3 mars.", "Dufour"),
     ("Danke für die 3 Tipps, ich fange am Montag an.", "Montag"), ("Dziękuję, the clinic moved me to nights.", "nights")],
)
def test_thanks_beside_a_name_a_number_or_a_clause_keeps_it(text, fact):
    from memdesk.conversation.lexicon import thanks_for

    assert not thanks_for(text)
    bodies = [body(r) for r in RuleExtractor().extract(utt(text, "Ana"), ALL)]
    assert any(fact in b for b in bodies), bodies

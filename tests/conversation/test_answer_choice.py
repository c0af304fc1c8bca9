"""Which evidence record the extractive answerer presents (memdesk.conversation.answer_choice)."""

from __future__ import annotations

from memdesk.conversation.answer import NOT_DIRECT, ExtractiveAnswerer
from memdesk.conversation.answer_choice import TRUST, choose
from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.hits import Evidence, SearchHit

SCOPE = Scope(user_id="u")


def fact(text: str, superseded: bool = False) -> SemanticRecord:
    return SemanticRecord(scope=SCOPE, speaker="Noor", fact=text, superseded_by="newer" if superseded else None)


def hits(*records: SemanticRecord, top: float = 0.15) -> list[SearchHit]:
    """Hits best first, the first scored ``top`` (by default below :data:`TRUST`: the ranking is unsure, words
    decide)."""
    n = len(records)
    return [
        SearchHit(record=r, score=top * (1 - i / n), memory_type=MemoryType.SEMANTIC, rank=i, why="test")
        for i, r in enumerate(records)
    ]


def evidence(*records: SemanticRecord) -> Evidence:
    return Evidence(hits=hits(*records), text="x", tokens=1)


def test_the_first_hit_answers_when_it_holds_the_question_s_words():
    ev = hits(fact("Noor lives in Utrecht."), fact("Noor's sister lives in Ghent near the station."), fact("Noor likes tea."))
    assert choose("Where does Noor live?", ev).answer is ev[0]


def test_a_lower_hit_answers_when_the_first_holds_none_of_the_question_s_words():
    ev = hits(
        fact("Noor started a new job at the library."),  # related by meaning, says nothing of the dog
        fact("Noor adopted a rescue greyhound called Biscuit."),
        fact("Noor cycles to work."),
        fact("Noor's brother visits in May."),
    )
    c = choose("What is the name of Noor's greyhound?", ev)
    assert c.answer is ev[1] and "greyhound" in c.terms
    assert "noor" not in c.terms  # held by most of the evidence: says nothing about which record answers


def test_the_first_hit_is_kept_over_one_sharing_a_few_more_words():
    ev = hits(
        fact("Noor finished the city half marathon in two hours."),
        fact("Noor is training for a half marathon and runs twice a week."),
        fact("Noor's cousin moved to Delft."),
        fact("Noor bought a new bicycle."),
        fact("Noor prefers window seats."),
    )
    assert choose("How long did Noor take to run the half marathon?", ev).answer is ev[0]


def test_when_no_current_record_holds_the_words_it_says_so_and_names_what_it_found():
    ev = evidence(
        fact("Noor booked swimming lessons."),
        fact("Noor lives in a flat in Leiden with her parrot, Kiwi.", superseded=True),
        fact("Noor drinks green tea."),
    )
    text = ExtractiveAnswerer().answer("What is Noor's parrot called?", ev).answer
    assert text.startswith(f"[extractive: best evidence] {NOT_DIRECT} Closest: Noor booked swimming lessons.")
    assert text.endswith("Earlier (since replaced): Noor lives in a flat in Leiden with her parrot, Kiwi.")
    plain = ExtractiveAnswerer().answer("Which bank does Noor use?", evidence(fact("Noor drinks green tea."), fact("Noor walks to work.")))
    assert NOT_DIRECT in plain.answer and "Earlier" not in plain.answer


def test_a_question_of_names_and_function_words_only_takes_the_first_hit():
    ev = hits(*(fact(f"Noor said thing {i}.") for i in range(5)))
    assert choose("Who is Noor?", ev).answer is ev[0]
    assert choose("anything", []).closest is None


def test_the_record_that_replaced_the_one_holding_the_words_answers_with_the_old_one_beside_it():
    new = fact("Noor moved to Rotterdam last week, into a houseboat.")
    old = fact("Noor lives in a flat in Leiden.", superseded=True).model_copy(update={"superseded_by": new.id})
    ev = evidence(fact("Noor started a new job."), new, fact("Noor drinks green tea."), old)
    text = ExtractiveAnswerer().answer("Where does Noor live now?", ev).answer
    assert text == (
        "[extractive: best evidence] Noor moved to Rotterdam last week, into a houseboat. "
        "Before (since replaced): Noor lives in a flat in Leiden."
    )


def test_a_record_a_later_one_says_no_longer_holds_is_passed_over():
    def said(text: str, day: int) -> SemanticRecord:
        return fact(text).model_copy(update={"metadata": {"said_at": f"2025-03-{day:02d}T10:00:00+00:00"}})

    old = said("Noor works as a nurse at the Riverside clinic.", 1)
    ev = hits(
        old,
        said("Noor started at the city hospital and works nights now.", 20),
        said("Noor no longer works at the Riverside clinic.", 20),
        said("Noor drinks green tea.", 2),
    )
    assert choose("Where does Noor work?", ev).answer is ev[1]
    # the negation must be later and share two distinctive words: an unrelated "no longer" changes nothing
    ev2 = hits(old, said("Noor no longer drinks coffee.", 20), said("Noor cycles to the clinic.", 3), said("Noor likes tea.", 2))
    assert choose("Where does Noor work?", ev2).answer is ev2[0]


def test_a_first_hit_the_ranking_is_sure_of_answers_whatever_words_it_holds():
    """"Where does Noor work now?": "Noor is a nurse at St Mary's now" holds none of its words and answers it; a
    calibrated relevance of :data:`TRUST` or more lets the ranking decide."""
    records = (
        fact("Noor is a nurse at St Mary's now."),
        fact("Noor no longer works at the Riverside clinic."),
        fact("Noor likes tea."),
    )
    sure = hits(*records, top=TRUST)
    assert choose("Where does Noor work now?", sure).answer is sure[0]
    unsure = hits(*records, top=TRUST - 0.01)
    # "no longer works at the Riverside clinic" says where Noor does not work: not an answer to where she works now;
    # no other record holds "work": nothing says it directly, and the first hit is what was found
    c = choose("Where does Noor work now?", unsure)
    assert c.answer is None and c.closest is unsure[0]
    assert choose("Does Noor still work at the Riverside clinic?", unsure).answer is unsure[1]  # words decide
    replaced = hits(fact("Noor lives in Leiden.", superseded=True), *records, top=0.9)
    assert choose("Where does Noor work now?", replaced).answer is not replaced[0]  # a replaced record is never trusted


def test_a_closing_statement_is_not_the_answer_to_what_holds_now():
    """A record saying where Noor no longer works is passed over for "Where does Noor work?"; the one stating where
    she works answers, in several phrasings of the closing statement."""
    for closing in (
        "Noor no longer works at the Riverside clinic.",
        "Noor isn't at the Riverside clinic any more.",
        "Noor left the Riverside clinic.",
        "Noor used to work at the Riverside clinic.",
    ):
        ev = hits(fact(closing), fact("Noor is a nurse at St Mary's."), fact("Noor likes tea."), top=0.9)
        assert choose("Where does Noor work?", ev).answer is ev[1], closing
        assert choose("Where did Noor work before?", ev).answer is ev[0], closing  # the past: it answers


def test_a_closing_statement_that_replaced_the_words_gives_way_to_its_message_s_new_value():
    """"Noor works at the Riverside clinic" was replaced by "Noor no longer works at the Riverside clinic"; the same
    message said "Noor started at St Mary's": that is the answer, with the old record beside it."""
    old = SemanticRecord(scope=SCOPE, speaker="Noor", fact="Noor works at the Riverside clinic.", provenance=["m1"])
    closing = SemanticRecord(scope=SCOPE, speaker="Noor", fact="Noor no longer works at the Riverside clinic.", provenance=["m9"])
    new = SemanticRecord(scope=SCOPE, speaker="Noor", fact="Noor started at St Mary's two weeks ago.", provenance=["m9"])
    old = old.model_copy(update={"superseded_by": closing.id})
    ev = hits(fact("Noor moved into a flat by the canal."), new, fact("Noor likes tea."), closing, old)
    c = choose("Where does Noor work?", ev)
    assert c.answer is ev[1] and c.earlier is ev[4]
    text = ExtractiveAnswerer().answer("Where does Noor work?", Evidence(hits=ev, text="x", tokens=1)).answer
    assert text.index("St Mary's") < text.index("Before (since replaced): Noor works at the Riverside clinic.")


def test_only_closing_statements_in_evidence_say_so_instead_of_answering():
    ev = evidence(fact("Noor no longer works at the Riverside clinic."), fact("Noor likes tea."), fact("Noor cycles."))
    text = ExtractiveAnswerer().answer("Where does Noor work?", ev).answer
    assert NOT_DIRECT in text and "Closest: Noor no longer works at the Riverside clinic." in text


def test_an_answer_without_the_asked_value_comes_with_its_message_s_statement_of_it():
    shifts = SemanticRecord(scope=SCOPE, speaker="Noor", fact="Noor works night shifts now.", provenance=["m9"])
    place = SemanticRecord(scope=SCOPE, speaker="Noor", fact="Noor started at St Mary's.", provenance=["m9"])
    ev = hits(shifts, fact("Noor moved into a flat by the canal."), fact("Noor likes tea."), place)
    c = choose("Where does Noor work?", ev)
    assert c.answer is ev[0] and c.beside is ev[3].record
    text = ExtractiveAnswerer().answer("Where does Noor work?", Evidence(hits=ev, text="x", tokens=1)).answer
    assert "Noor works night shifts now." in text and "St Mary's" in text


def test_the_message_s_statement_of_the_value_is_read_from_its_mates_when_the_block_left_it_out():
    """"Start date 1 July." answers "Where will Noor work from July?" by its date; the same message said where
    ("Noor will be a ward sister at Lakeshore Hospital.") but ranked out of the block: the answerer reads it from
    the message's other records. Another message's place, or a closed statement, is never brought in."""
    start = SemanticRecord(scope=SCOPE, speaker="Noor", fact="Start date 1 July.", provenance=["m4"])
    place = SemanticRecord(scope=SCOPE, speaker="Noor", fact="Noor will be a ward sister at Lakeshore Hospital.", provenance=["m4"])
    ev = hits(start, fact("Noor likes tea."), top=0.6)
    asked: list[str] = []

    def mates(record):
        asked.append(record.id)
        return [place] if record.provenance == ["m4"] else []

    c = choose("Where will Noor work from July?", ev, mates=mates)
    assert c.answer is ev[0] and c.beside is place and asked == [start.id]
    text = ExtractiveAnswerer().answer("Where will Noor work from July?", Evidence(hits=ev, text="x", tokens=1), mates=mates).answer
    assert text.index("Start date 1 July.") < text.index("Lakeshore Hospital")
    assert choose("Where will Noor work from July?", ev).beside is None  # without mates: nothing to read
    assert choose("Where will Noor work from July?", ev, mates=lambda r: [fact("Noor no longer works at Lakeshore Hospital.")]).beside is None


def test_a_memory_answer_brings_in_a_statement_of_the_same_message_ranked_out_of_the_block(tmp_path):
    """End to end through Memory (SQLite, the packaged embedder): the asked value, said in the first hit's own
    message, is in the offline answer even when the block has no room for it."""
    from memdesk import Memory
    from memdesk.retrieval.retrieve import Retriever

    mem = Memory.open(database_url=f"sqlite:///{tmp_path / 'm.db'}")
    scope = Scope(user_id="noor")
    try:
        mem.add([{"role": "user", "content": "I got the job offer! Charge nurse at Lakeshore Hospital in Leeds. Start date 1 July."}],
                scope=scope, speaker="Noor")
        record = next(r for r in mem.get_all(scope=scope) if "Start date" in r.text() and "Lakeshore" not in r.text())
        mates = mem.retriever.same_message(scope, record)
        assert mates and all(m.provenance[:1] == record.provenance[:1] and m.id != record.id for m in mates)
        assert isinstance(mem.retriever, Retriever)
        first = mem.search("Where will Noor work from July?", scope=scope, K=1)
        assert [h.record.id for h in first] == [record.id]  # the block holds the date, not the place
        out = mem.answer("Where will Noor work from July?", scope=scope, K=1)
        assert "Lakeshore" in out.answer
    finally:
        mem.close()


def test_a_question_about_what_held_before_is_answered_by_the_replaced_record_of_the_asked_kind():
    """"What did Noor pay for the allotment before the rise?": the current record holding the new fee ranks first; the
    replaced one states an amount and holds the question's words: it answers. A question about now keeps the current."""
    new = fact("The allotment fee went up to 60 euros a year.")
    old = fact("Noor pays 45 euros a year for the allotment.", superseded=True).model_copy(update={"superseded_by": new.id})
    ev = hits(new, fact("Noor grows leeks and beans."), old, fact("Noor's neighbour keeps bees."), top=0.6)
    assert choose("What did Noor pay for the allotment before the rise?", ev).answer is ev[2]
    assert choose("What does Noor pay for the allotment now?", ev).answer is ev[0]
    # a replaced record that states no amount is not the old value: the ranking's answer stands
    chat = fact("Noor talked about the allotment with the committee.", superseded=True)
    ev2 = hits(new, fact("Noor grows leeks and beans."), chat, top=0.6)
    assert choose("What did Noor pay for the allotment before the rise?", ev2).answer is ev2[0]


def test_a_replaced_first_hit_answers_a_question_about_what_held_before():
    """The ranking does not demote replaced records for a question about before; when it puts one first, that record
    answers even if it shares no word with the question ("Where did Noor live before the move?")."""
    old = fact("Noor rented a room above the bakery in Delft.", superseded=True)
    ev = hits(old, fact("Noor moved into a houseboat in Rotterdam."), fact("Noor likes tea."), top=0.5)
    assert choose("Where did Noor live before the move?", ev).answer is ev[0]
    assert choose("Where does Noor live now?", ev).answer is not ev[0]

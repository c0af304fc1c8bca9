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
    # the first hit states a place of work (a nurse at St Mary's): it answers even when the ranking is unsure
    assert choose("Where does Noor work now?", unsure).answer is unsure[0]
    c = choose("Where does Noor work now?", hits(records[1], records[2], top=TRUST - 0.01))
    assert c.answer is None and c.closest.record is records[1]  # only the closing statement: nothing says it
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


def said(text: str, when: str, **update) -> SemanticRecord:
    """A record of Noor's said at ``when`` (an ISO day)."""
    return fact(text).model_copy(update={"metadata": {"said_at": f"{when}T10:00:00+00:00"}, **update})


def test_a_record_closed_only_after_the_asked_time_still_answers():
    """"Noor works at the Elm Street bakery" is closed from 1 June ("I leave the bakery at the end of May", said in
    April): asked in May it still holds and answers; asked in July it no longer does."""
    from datetime import datetime, timezone

    new = said("Noor will start at the library on Canal Road in June.", "2025-04-02")
    old = said("Noor works at the Elm Street bakery.", "2025-01-10", superseded_by=new.id,
               valid_to=datetime(2025, 6, 1, tzinfo=timezone.utc))
    ev = hits(old, fact("Noor likes tea."), fact("Noor cycles to the market."), top=0.6)
    may, july = datetime(2025, 5, 3, tzinfo=timezone.utc), datetime(2025, 7, 3, tzinfo=timezone.utc)
    assert choose("Where does Noor work?", ev, asked_at=may).answer is ev[0]
    assert choose("Where does Noor work?", ev, asked_at=july).answer is None
    assert choose("Where does Noor work?", ev).answer is None  # no asked time: superseded is replaced
    # the answerer reads the asked time from question_time
    text = ExtractiveAnswerer().answer("Where does Noor work?", Evidence(hits=ev, text="x", tokens=1), question_time="2025-05-03").answer
    assert "Elm Street bakery" in text and NOT_DIRECT not in text


def test_a_question_asking_for_a_kind_of_value_is_answered_by_a_hit_stating_one():
    """"Where does Noor get her bike repaired?": the sure first hit says nothing of a place; the hit that does and holds
    the question's words answers. Of two hits stating a place, the one holding the question's words answers."""
    ev = hits(
        fact("Noor's bike got a flat tyre again this morning."),
        fact("Noor has the bike repaired at a little shop in Portobello every spring."),
        fact("Noor likes tea."),
        top=0.8,
    )
    assert choose("Where does Noor get her bike repaired?", ev).answer is ev[1]
    ev2 = hits(
        fact("Noor was born at the Western General in Edinburgh."),
        fact("Noor's piano lessons are at the music school in Leith."),
        fact("Noor likes tea."),
        top=0.8,
    )
    assert choose("Where are Noor's piano lessons?", ev2).answer is ev2[1]


def test_a_time_the_question_names_picks_the_record_said_then():
    """"What dose was Noor taking in March?" (asked in June; no kind of value asked): of the records holding its words,
    the one said in March answers, not the later change the ranking puts first."""
    from datetime import datetime, timezone

    ev = hits(
        said("The GP put Noor's inhaler dose up to four puffs.", "2025-05-02"),
        fact("Noor likes tea."),
        said("Noor takes two puffs of the inhaler, a low dose, mornings only.", "2025-03-05"),
        top=0.6,
    )
    asked = datetime(2025, 6, 10, tzinfo=timezone.utc)
    assert choose("What inhaler dose was Noor taking in March?", ev, asked_at=asked).answer is ev[2]
    assert choose("What inhaler dose was Noor taking in May?", ev, asked_at=asked).answer is ev[0]


def test_a_replaced_record_still_answers_for_the_part_its_replacement_did_not_change():
    """"Noor rents from Mr Okafor, 900 a month" was replaced by "the rent went up to 950 a month": the landlord did not
    change, so "Who is Noor's landlord?" is answered by the replaced record; what the rent is now is not."""
    new = said("The rent went up to 950 a month.", "2025-03-01")
    old = said("Noor rents the flat from Mr Okafor, 900 a month.", "2025-01-05", superseded_by=new.id)
    ev = hits(new, fact("Noor likes tea."), old, fact("Noor cycles."), fact("Noor sings."), top=0.6)
    assert choose("Who does Noor rent the flat from?", ev).answer is ev[2]
    assert choose("How much is Noor's rent now?", ev).answer is ev[0]


def test_a_later_change_on_the_same_subject_answers_what_holds_now():
    """Two current records state the gym's price (the write side did not close the first): for "now", the later one."""
    ev = hits(
        said("Noor's gym membership costs 30 pounds a month.", "2025-01-10"),
        said("The gym put the membership up to 35 pounds a month.", "2025-03-02"),
        fact("Noor likes tea."),
        fact("Noor cycles to the market."),
        fact("Noor sings in a choir."),
        top=0.8,
    )
    assert choose("How much is Noor's gym membership now?", ev).answer is ev[1]
    assert choose("How much was Noor's gym membership in January?", ev, asked_at=None).answer is ev[0]


def test_when_does_is_answered_by_a_time_of_day():
    ev = hits(fact("Noor adores the dog."), fact("Noor walks the dog at 7am before work."), fact("Noor likes tea."), top=0.8)
    assert choose("When does Noor walk the dog?", ev).answer is ev[1]


def test_the_numbers_of_dates_are_not_the_words_a_negation_shares():
    """A later "quit" record sharing only the digits of written dates with the first hit does not close it."""
    ev = hits(
        said("The oven engineer comes on Friday (2025-02-07).", "2025-02-03"),
        said("Noor's helper quit last week (2025-02-03).", "2025-02-10"),
        fact("Noor likes tea."),
        fact("Noor cycles to the market."),
        fact("Noor sings in a choir."),
        top=0.9,
    )
    assert choose("When did the oven engineer come?", ev).answer is ev[0]


def test_a_later_first_hit_stating_nothing_keeps_the_answer_over_an_older_statement_of_the_kind():
    """"Where does Noor work?": the sure first hit "Noor works night shifts now" (said last) states no place; an older
    record holding the same words states one (the Riverside clinic, since left): the first hit answers, not it."""
    ev = hits(
        said("Noor works night shifts now.", "2025-05-02"),
        said("Noor got the job at St Mary's, two weeks ago.", "2025-04-15"),
        said("Noor works as a nurse at the Riverside clinic in Leeds.", "2025-03-04"),
        fact("Noor likes tea."),
        fact("Noor sings in a choir."),
        top=0.4,
    )
    assert choose("Where does Noor work?", ev).answer is ev[0]
    # said earlier than the statement of a place, the first hit gives way to it
    early = hits(said("Noor works night shifts now.", "2025-01-02"), *(h.record for h in ev[1:]), top=0.4)
    assert choose("Where does Noor work?", early).answer is early[2]


def test_a_best_record_without_a_value_of_the_asked_kind_is_presented_as_what_was_found():
    """"When is Noor's dentist appointment?": the record holding its words states no date and nothing in its message
    does: the answerer says nothing says it directly and names the record, rather than presenting it as the answer."""
    ev = hits(fact("Noor hates the dentist appointment reminders."), fact("Noor likes tea."), fact("Noor cycles."), top=0.6)
    c = choose("When is Noor's dentist appointment?", ev)
    assert c.answer is ev[0] and not c.direct
    text = ExtractiveAnswerer().answer("When is Noor's dentist appointment?", Evidence(hits=ev, text="x", tokens=1)).answer
    assert text == f"[extractive: best evidence] {NOT_DIRECT} Closest: Noor hates the dentist appointment reminders."
    dated = hits(fact("Noor's dentist appointment is on 4 June."), fact("Noor likes tea."), top=0.6)
    assert choose("When is Noor's dentist appointment?", dated).direct  # a date: it answers
    assert choose("Why does Noor like tea?", ev).direct  # no kind asked: the best record answers

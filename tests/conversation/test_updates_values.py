"""New values without shared words of change (issue 28): amounts by scale or thousands, schedules by mornings a
week, change verbs in every inflection, a sentence naming the value it replaces, a list of amounts or dates that one
new value does not replace whole, a date and its weekday as one date, and one list of currencies with the read side."""

from __future__ import annotations

import pytest

from memdesk.conversation.updates import update_of, updated_by, values_of
from memdesk.retrieval.value_kinds import stated_kinds


@pytest.mark.parametrize(
    "text,kinds",
    [
        ("The loft conversion budget is 38k.", {"money": {"38k"}}),
        ("Actually the deposit is 4,250.", {"money": {"4250"}}),
        ("The thesis draft is 62,000 words.", {"count": {"62000 word"}}),
        ("Gran's pension is 9,000 cedis a year.", {"money": {"9000 cedis"}}),
        ("Tomek walks the dogs three evenings a week.", {"frequency": {"3 evening week"}}),
        ("Tomek walks the dogs one evening a week now.", {"frequency": {"1 evening week"}}),
        ("The course starts on the 9th of March.", {"date": {"9th march"}}),
    ],
)
def test_typed_values_of_everyday_amounts_and_schedules(text: str, kinds: dict[str, set[str]]) -> None:
    assert values_of(text) == kinds


def test_one_list_of_currencies_on_both_sides() -> None:
    for text in ("We pay 120 quid for the van.", "The stall takes 3,000 pesetas.", "Rent is 75,000 ksh."):
        assert "money" in values_of(text) and "money" in stated_kinds(text)


@pytest.mark.parametrize(
    "old,new,shared",
    [
        ("Our loft budget is 38k.", "We bumped the loft budget to 41k.", {"loft", "budget"}),
        ("The ferry pass is £64 a month.", "They're raising the ferry pass to £70 a month.", {"ferri", "pass"}),
        ("Nadia tutors maths two afternoons a week.", "Nadia is cutting maths tutoring to one afternoon a week.", {"math"}),
        ("The studio lease ends in August.", "The landlord is extending the studio lease to November.", {"studio", "leas"}),
        ("The mortgage offer was 4.6%.", "The mortgage broker got us 4.1%, not 4.6%.", {"mortgag"}),
        ("The recital is on Saturday 12 April.", "The recital moved to Saturday 26 April.", {"recit"}),
    ],
)
def test_a_new_value_said_in_other_words_updates_the_old_one(old: str, new: str, shared: set[str]) -> None:
    claim = update_of(new)
    assert claim is not None and shared <= updated_by(claim, old, frozenset())


def test_naming_the_old_value_needs_one_of_the_same_kind() -> None:
    assert update_of("The garage quoted 40%, not 35%.") is not None
    assert update_of("The garage quoted 40%, not the dealer.") is None


@pytest.mark.parametrize(
    "old,new,item",
    [
        ("I sell the scarves at $12 and the hats at $19.", "I'm raising the scarves to $14.", "scarv"),
        ("Mock exams: chemistry on 3 March, physics on 10 March.", "The chemistry mock moved to 5 March.", "chemistri"),
        ("We have 9,000 saved and the bank offered a loan of 60,000.", "The bank loan came in at 55,000 in the end.", "loan"),
    ],
)
def test_one_new_value_of_a_list_is_of_the_item_its_words_name(old: str, new: str, item: str) -> None:
    # the list is split item by item (:mod:`memdesk.conversation.remainder`): only the item named changes
    claim = update_of(new)
    assert claim is not None and item in updated_by(claim, old, frozenset())
    unnamed = update_of("Prices go up to 14 now.")
    assert unnamed is not None and not updated_by(unnamed, old, frozenset())


def test_an_amount_in_another_currency_is_no_list_of_the_new_one() -> None:
    claim = update_of("We raised the wedding budget to €31,000, my uncle gave 2,000.")
    assert claim is not None and "budget" in updated_by(claim, "The wedding budget is €27,000: my aunt gives 4,000.", frozenset())

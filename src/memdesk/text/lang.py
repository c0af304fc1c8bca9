"""What language a text is in, as far as memdesk's offline parts need to know.

Two questions, both answered from the text alone (no model, deterministic):

* :func:`scripts_of` / :func:`dominant_script`: which writing systems a text's letters come from
  (``Latin``, ``Cyrillic``, ``Han``, ``Arabic``, ...), from the Unicode names of its letters. An
  embedder declares the scripts it embeds well (:attr:`memdesk.embed.base.BaseEmbedder.scripts`),
  and ingest warns once per scope about text in any other.
* :func:`is_english`: whether the offline rules (router, extractor, person rewrites), which are
  written for English, apply. A text is English unless there is positive evidence that it is not:
  most of its letters are in a non-Latin script, or it holds more function words of other
  Latin-script languages (Spanish, French, German, Portuguese, Italian, Dutch, ...) than of
  English, or it has none of English's and carries letters English rarely uses (``é``, ``ñ``,
  ``ß``, ...). A text with no evidence either way ("Wow!!", "Sushi tonight") counts as English,
  so short English turns keep the English rules.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

__all__ = ["scripts_of", "dominant_script", "is_english", "english_function_words"]

# Unicode name prefixes -> script. "CJK UNIFIED IDEOGRAPH" is Han.
_SCRIPT_ALIASES = {"CJK": "Han", "HIRAGANA": "Hiragana", "KATAKANA": "Katakana", "HANGUL": "Hangul"}

#: Frequent English function words (ambiguous ones shared with other languages left out: a, me, no, in, on).
_ENGLISH = frozenset(
    """
    the and is are was were you it it's that this with have has had to of my we they he she i i'm i've
    i'll i'd for not but what so at be just will can do does did your our from an about been would
    there like if their them his her its or all how when which who because than then some any also
    very really got get going know think want there's don't didn't can't won't yes yeah
    """.split()
)

#: Function words of other Latin-script languages that are not English words.
_OTHER_LATIN = frozenset(
    """
    el la los las del y es un una en por para con mi muy pero se está estoy soy fue tengo ayer
    que qué mañana nos hoy también porque cuando donde dónde cómo mes año gracias hola
    le les des du et est une je tu il elle nous vous ils sont avec pour mais dans sur suis j'ai
    c'est très aussi ça hier aujourd'hui oui merci bonjour où quand
    der das und ist ich nicht ein eine auf für sie wir ihr sind auch nach bei zu
    gestern heute ja nein danke mein meine dem habe
    o os uma não é eu com mas mais muito você ele ela foi estou tenho ontem hoje obrigado
    gli che è sono non molto ieri oggi grazie
    het een ik niet zijn heb voor maar ook gisteren vandaag
    saya yang ke dari ini itu tidak aku kamu
    bir bu çok değil evet
    nie się że jak tak
    """.split()
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)
#: Letters that English text rarely uses (loanwords like café aside).
_FOREIGN_LETTERS = re.compile(r"[áéíóúñ¿¡àèìòùâêîôûçãõäöüßœæøåłśźżćńęąğşč]")


def scripts_of(text: str) -> Counter[str]:
    """How many letters of ``text`` belong to each script (``Latin``, ``Cyrillic``, ``Han`` ...)."""
    out: Counter[str] = Counter()
    for ch in text:
        if not ch.isalpha():
            continue
        try:
            head = unicodedata.name(ch).split()[0]
        except ValueError:  # unnamed code point
            continue
        out[_SCRIPT_ALIASES.get(head, head.capitalize())] += 1
    return out


def dominant_script(text: str) -> str | None:
    """The script most of the letters of ``text`` are in; ``None`` for a text without letters."""
    counts = scripts_of(text)
    return counts.most_common(1)[0][0] if counts else None


def english_function_words(text: str) -> int:
    """How many of the words of ``text`` are English function words (the evidence :func:`is_english` weighs)."""
    return sum(w in _ENGLISH for w in _words(text))


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text.replace("’", "'"))]


def is_english(text: str) -> bool:
    """Whether the English rules apply to ``text`` (see the module docstring for the test)."""
    counts = scripts_of(text)
    if not counts:
        return True
    latin = counts.get("Latin", 0)
    if latin * 2 < sum(counts.values()):
        return False
    words = _words(text)
    english = sum(w in _ENGLISH for w in words)
    other = sum(w in _OTHER_LATIN for w in words)
    if other > english:
        return False
    return not (english == 0 and _FOREIGN_LETTERS.search(text.lower()))

"""The rule router's and extractor's word lists: words that carry no content on their own, irregular past forms,
and adjectives that end in -ed (not a past tense)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..text.english import IRREGULAR_PAST

__all__ = [
    "ED_ADJECTIVES", "IRREGULAR_PAST", "PHATIC_ELSEWHERE", "PHATIC_WORDS", "THANKS_WORDS", "name_words", "phatic_elsewhere",
    "thanks_for",
]

#: Words that carry no content on their own: greetings, thanks, interjections, evaluations,
#: function words. A sentence made only of these (and names) is phatic.
PHATIC_WORDS = frozenset(
    """
    hi hey heya hiya hello yo howdy greetings morning evening afternoon night goodnight gm gracias merci danke grazie obrigado
    thanks thank thx ty tysm appreciate appreciated appreciation cheers welcome
    wow woah whoa omg oh ooh ah aww aw haha hahaha hah heh hehe lol lmao yay woohoo hooray yikes oops
    yeah yes yep yup ya yea no nope nah ok okay k sure alright right true exactly totally absolutely
    definitely indeed certainly agree agreed same indeed nice cool great awesome amazing fantastic
    wonderful lovely sweet fab fabulous incredible terrific brilliant super neat beautiful gorgeous
    stunning impressive inspiring good glad happy excited thrilled sorry bad sad tough hard crazy wild
    fun funny interesting kind thoughtful proud congrats congratulations bravo kudos love loved
    like likes liked hope hoping hear hearing heard see seeing seen sounds sound looks look seems seem
    feel feels mean means meant know knew get gets got think thought guess say said tell talk
    bye goodbye later soon care catch chat chatting touch luck well fine alive
    bet ouch ha yum yummy perfect classic adorable brave rough brutal cute hilarious epic noted gotcha happened
    you your yours yourself i me my mine myself we us our ours it its it's that that's this these those
    they them their theirs
    there here what's what how how's how're who why when where which whatever
    a an the and or but so too also very really just such much many lot lots quite pretty super
    of to for with about at in on up out from by as all any anything everything something nothing
    is am are was were be been being do does did doing done have has had having will would can could
    should shall may might must gonna wanna gotta let let's
    new going doing been up day today again always still ever even now then ever yet
    thing things stuff one ones way
    man dude buddy pal friend girl guys bud mate dear hun
    """.split()
)

#: "-ed" words that are usually adjectives, not events.
ED_ADJECTIVES = frozenset(
    """
    interested excited tired inspired motivated married scared bored worried stressed
    amazed thrilled pleased surprised relieved overwhelmed blessed determined dedicated committed
    talented skilled experienced limited related used supposed based focused involved
    confused frustrated disappointed concerned exhausted obsessed impressed touched moved
    need needed red bed shed seed feed speed weed indeed proceed exceed succeed wicked naked
    sacred hundred kindred beloved crooked rugged
    """.split()
)


#: Thanks proper, in English and other languages (Latin letters and their own scripts).
THANKS_WORDS = frozenset(
    """
    thanks thank thx ty cheers gracias merci danke grazie obrigado obrigada valeu bedankt díky děkuji dziękuję dzięki
    tack takk tak teşekkürler sağol shukran shukriya dhanyavaad dhanyavad spasibo спасибо arigato arigatou kamsahamnida
    gomawo asante toda mahalo kiitos aitäh paldies ačiū hvala köszönöm köszi mulțumesc mersi multumesc gràcies diolch
    ευχαριστώ efharisto дякую спасибі рахмет rahmat спс благодаря благодарю мерси salamat dhonnobad nandri nanri
    dhanyabad ngiyabonga siyabonga enkosi dankie medaase nagode ameseginalehu bayarlalaa fa'afetai faafetai vinaka
    tenkyu شكرا مرسی ممنون धन्यवाद शुक्रिया 谢谢 多谢 謝謝 ありがとう 감사합니다 고마워 ขอบคุณ תודה
    """.split()
)
#: Greetings, thanks, wishes, acknowledgements and terms of address (a closed class in every language) in the other
#: languages people most often mix into an English chat (French, Spanish, Portuguese, Italian, German, Dutch, Czech,
#: Polish, the Scandinavian languages, Turkish, and Arabic, Hindi/Urdu, Russian, Japanese, Korean, Swahili,
#: Indonesian and Hebrew as written in Latin letters), with their function words: a message made only of these (and
#: names) is small talk in any language ("Merci beaucoup !", "Buenos días, Sofía!", "Díky").
PHATIC_ELSEWHERE = frozenset(
    """
    bonjour bonsoir salut coucou merci beaucoup mille fois parfait super génial bravo félicitations bienvenue avec
    plaisir bon bonne courage d'accord accord de rien pas problème à bientôt tout toi vous et le la les un une
    hola buenos buenas días dias tardes noches gracias muchas muchísimas vale perfecto genial claro enhorabuena
    felicidades nada adiós hasta luego pronto mañana qué tal igualmente un abrazo
    olá oi bom boa dia tarde noite obrigado obrigada valeu perfeito parabéns até logo tchau
    ciao buongiorno buonasera grazie prego perfetto complimenti auguri arrivederci presto
    hallo guten morgen tag abend danke schön vielen dank bitte gern gerne geschehen prima toll tschüss servus alles
    gute glückwunsch herzlichen bis bald
    hoi goedemorgen goedenavond bedankt dank je wel graag gedaan
    soirée journée nuit semaine buen buena fin semana nacht schönen wochenende buona notte giornata serata
    ahoj dobrý dobré den ráno večer díky děkuji moc prosím nashle
    cześć dzień dobry dobranoc dzięki dziękuję bardzo proszę dobrze wieczór wieczor
    hermano hermana amigo amiga querido querida mano irmão irmã amico amica fratello caro cara cher chère mon ma
    tanti tante auguroni grazie mille buon buone ciao ciao e aí tudo beleza fala
    hej hejsan hallå hejdå då tack så mycket god morgon kväll natt ha det bra vi ses takk tak godmorgen
    merhaba selam günaydın iyi akşamlar geceler teşekkürler teşekkür ederim sağol sağ ol görüşürüz hoşça kal
    marhaba ahlan salam salaam alaikum shukran habibi habibti yalla sabah al khair kheir masaa
    namaste namaskar shukriya dhanyavaad dhanyavad ji bhai didi
    privet spasibo poka zdravstvuyte привет спасибо пока здравствуйте большое
    arigato arigatou gozaimasu konnichiwa ohayo ohayou konbanwa sayonara
    annyeong annyeonghaseyo kamsahamnida gomawo
    jambo habari asante sana karibu
    terima kasih selamat pagi siang malam
    shalom toda raba lehitraot boker tov
    kia ora tēnā koe aloha mahalo
    perfekt perfetto klar okej jasne dobrze hyvä graciñas tusen привіт вітаю сәлем салем salem salom здравей cảm ơn
    cám xin chào po maraming kumusta meda ase oshe ese na gode malo
    o
    """.split()
) | (THANKS_WORDS - PHATIC_WORDS)  # the thanks of the other languages
_PHATIC_ANYWHERE = PHATIC_ELSEWHERE | PHATIC_WORDS
_ANY_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


#: Greetings and thanks proper, in English and the languages above (not acknowledgements, "Yes, Tuesday." answers a
#: question, nor function words: "Mon: EOQ." is a line of a plan).
_GREETS = THANKS_WORDS | frozenset(
    """
    hi hey heya hiya hello howdy greetings morning evening afternoon goodnight bye goodbye
    bonjour bonsoir salut coucou hola buenos buenas olá oi ciao buongiorno
    buonasera hallo guten hoi goedemorgen goedenavond ahoj cześć hej
    hejsan merhaba selam günaydın marhaba ahlan salam salaam namaste namaskar
    privet konnichiwa ohayo ohayou konbanwa annyeong
    annyeonghaseyo jambo karibu terima kasih selamat shalom kia ora aloha
    salem сәлем салем salom привіт вітаю здравей chào kumusta
    """.split()
)
#: The word after thanks that says what for, in the languages above ("tack för ...", "merci pour ...", "dzięki za ...").
_THANKS_FOR = frozenset(
    "for för pour por para per für voor za için kwa dla за на na pelo pela pelos pelas tad forr".split()
)
#: The most words a "thanks for ..." says besides its formula ("tack för all hjälp", "merci pour tout").
MAX_THANKS_FOR_WORDS = 3
#: The most words of a greeting that names someone not yet known ("Buenos días, Dolores.", "Gracias, cariño.").
MAX_GREETING_WORDS = 5


def name_words(names: Iterable[str]) -> set[str]:
    """The lower-cased words of the speakers' names ("Ana Lima" -> ana, lima): the words a rule reads as names."""
    return {p.lower() for n in names if n for p in n.split()}


def phatic_elsewhere(text: str, names: Iterable[str] = ()) -> bool:
    """Whether ``text`` (not English) is only greetings, thanks and acknowledgements (:data:`PHATIC_ELSEWHERE`,
    :data:`PHATIC_WORDS`) and the names of the people talking. A short greeting or thanks (at most
    :data:`MAX_GREETING_WORDS` words, no digit) may hold one word besides: the name or term of address of someone the
    exchange has not named yet, or an interjection ("Konnichiwa, Aiko!", "Gracias, cariño.", "top, danke")."""
    said = [w.lower() for w in _ANY_WORD.findall(text)]
    names = name_words(names)
    if thanks_for(text, said):
        return True
    other = [w for w in said if not (w in _PHATIC_ANYWHERE or w in names or w.split("'")[-1] in _PHATIC_ANYWHERE)]
    if not said or len(other) > 1:
        return False
    greets = any(w in _GREETS for w in said)
    if not other:
        return True
    # the word stands in a phrase of at most two words of its own ("Danke, good plan."), not in a clause ("Paris is lovely")
    phrase = next(p for p in re.split(r"[,.!;:?\u2013\u2014]+", text.lower()) if other[0] in _ANY_WORD.findall(p))
    return greets and len(said) <= MAX_GREETING_WORDS and len(_ANY_WORD.findall(phrase)) <= 2 and not re.search(r"\d", text)


def thanks_for(text: str, said: list[str] | None = None) -> bool:
    """Whether ``text`` is thanks for something said in a few words, in any of the languages of
    :data:`THANKS_WORDS` ("tack för all hjälp", "Merci pour tout !", "Dziękuję for all the help"): a thanks word
    (after acknowledgements, if any), at most two words of degree, the word for "for", and at most :data:`MAX_THANKS_FOR_WORDS` words besides those this
    module holds, with no digit and no capitalised word after the first (a name or place says something)."""
    said = said if said is not None else [w.lower() for w in _ANY_WORD.findall(text)]
    # the thanks may follow an acknowledgement ("perfekt. tack för ...")
    start = next((i for i, w in enumerate(said) if w not in _PHATIC_ANYWHERE or w in THANKS_WORDS), len(said))
    if start >= len(said) - 1 or said[start] not in THANKS_WORDS or re.search(r"\d", text):
        return False
    if any(w[:1].isupper() for w in _ANY_WORD.findall(text)[start + 1 :]):
        return False
    # at most two words of degree between ("tack så mycket för ...", "thank you so much for ...")
    at = next((j for j in range(start + 1, min(start + 4, len(said))) if said[j] in _THANKS_FOR), None)
    if at is None or any(w not in _PHATIC_ANYWHERE for w in said[start + 1 : at]):
        return False
    return len([w for w in said[at + 1 :] if w not in _PHATIC_ANYWHERE]) <= MAX_THANKS_FOR_WORDS
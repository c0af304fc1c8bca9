"""Probe: each labelled date of a chat set vs what timeexpr resolves for the sentence holding it."""
import json, re, sys
from datetime import date, datetime
from memdesk.conversation.rules import split_sentences
from memdesk.timeexpr.resolve import resolve

def span_of(lbl):
    a, _, b = lbl.partition("/")
    return date.fromisoformat(a), date.fromisoformat(b or a)

def words(s): return set(re.findall(r"\w+", s.lower()))

bad = total = 0
for path in sys.argv[1:]:
    for line in open(path):
        chat = json.loads(line)
        msgs = {m["id"]: m for m in chat["messages"]}
        for lab in chat.get("labels", {}).get("dates", []):
            m = msgs[lab["message_id"]]
            ref = datetime.fromisoformat(m["time"])
            lo, hi = span_of(lab["date"])
            total += 1
            found = []
            for s in split_sentences(m["content"]):
                for t in resolve(s, ref, prefer="auto"):
                    tw, lw = words(t.text), words(lab["text"])
                    if t.text.lower() in lab["text"].lower() or lab["text"].lower() in t.text.lower() or (tw & lw - {"the","on","in","of","by","to","from","a","at","for"}):
                        found.append((t, s))
            ok = any(t.start.date() <= hi and (t.end.date() if t.end else t.start.date()) > lo for t, _ in found)
            if not ok:
                bad += 1
                print(f"{lab['message_id']} said {m['time'][:10]} {ref.strftime('%a')} | {lab['text']!r} -> {lab['date']} | got {[(t.text, t.label) for t,_ in found]}")
                sent = next((s for s in split_sentences(m['content']) if lab['text'].lower() in s.lower()), m['content'][:200])
                print("    ", sent[:220])
print(f"mismatch {bad}/{total}", file=sys.stderr)

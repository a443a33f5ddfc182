#!/usr/bin/env python3
"""Reference BERT tokenizer and generator of reference.json.

An independent implementation of the rules of BertTokenizerFast (the
Hugging Face tokenizers library, which sentence-transformers uses) written
from their description, with Python's own Unicode database
(unicodedata) deciding every character class. The Go tokenizer in
model/wordpiece must produce the same ids on every case; only the Unicode
tables differ between the two, which is the point of the check.

Rules (uncased BERT unless the case says otherwise):
  1. special tokens are cut out of the raw text first, never normalized;
  2. clean: drop NUL, U+FFFD and category C characters except tab,
     newline and carriage return; map those and category Zs to a space;
  3. put spaces around CJK Unified Ideographs;
  4. strip accents (NFD, drop category Mn) when configured;
  5. lower-case character by character (the library lower-cases chars,
     so no final-sigma context rule; U+0130 becomes "i" + U+0307);
  6. split at whitespace, and isolate each punctuation character (ASCII
     non-alphanumerics and category P);
  7. WordPiece: greedy longest match with "##" continuations; a word
     with an unmatchable rest, or over 100 characters, is [UNK].

Debian packages neither transformers nor tokenizers, so this script is the
reference. It needs only the standard library:

    python3 model/wordpiece/testdata/bert_reference.py   # rewrites reference.json
"""

import json
import os
import random
import unicodedata

CJK_RANGES = [
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def is_cjk(ch):
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def clean(text):
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "\t\n\r " or cat == "Zs":
            out.append(" ")
        elif ord(ch) == 0 or ord(ch) == 0xFFFD or cat.startswith("C"):
            continue
        else:
            out.append(ch)
    return "".join(out)


def normalize(text, lower, strip):
    text = clean(text)
    text = "".join(" " + c + " " if is_cjk(c) else c for c in text)
    if strip:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    if lower:
        text = "".join(c.lower() for c in text)
    return text


def words(text):
    out = []
    for chunk in text.split():
        cur = ""
        for c in chunk:
            if is_punct(c):
                if cur:
                    out.append(cur)
                    cur = ""
                out.append(c)
            else:
                cur += c
        if cur:
            out.append(cur)
    return out


def wordpiece(word, vocab, max_chars=100):
    if len(word) > max_chars:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            cand = ("##" if start else "") + word[start:end]
            if cand in vocab:
                pieces.append(cand)
                break
            end -= 1
        if end == start:
            return ["[UNK]"]
        start = end
    return pieces


def tokenize(text, vocab, lower=True, strip=True):
    """Tokens of text, without [CLS]/[SEP]."""
    out = []
    while text:
        at, name = len(text), None
        for sp in SPECIALS:
            i = text.find(sp)
            if i >= 0 and (i < at or (i == at and len(sp) > len(name))):
                at, name = i, sp
        for w in words(normalize(text[:at], lower, strip)):
            out.extend(wordpiece(w, vocab))
        if name is None:
            break
        out.append(name)
        text = text[at + len(name):]
    return out


# Characters the random cases draw from: every rule's classes, from
# blocks assigned long before Unicode 14 (Python's) and 15 (Go's).
POOL = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    "          "                       # spaces weigh more
    ".,;:!?'\"()[]{}<>-_/\\@#$%^&*+=|~`"  # ASCII punctuation and symbols
    "éèêëÉÀÂÄäöüÖÜßñÑçÇøØåÅæœ"          # Latin-1 and Latin Extended
    "ŞşİıĞğ"                            # Turkish (dotted and dotless i)
    "αβγδΣσςΩω"                         # Greek, both sigmas
    "привет"                            # Cyrillic
    "中文字博推的人有"                    # CJK ideographs
    "한국어かなカナ"                      # Hangul and kana (not CJK here)
    "\u0301\u0308\u0327"                # combining marks (Mn)
    "\u00a0\u2003\u3000"                # Zs spaces
    "\t\n\r\x00\x05\x7f\u0085\u00ad\u200b\u200e\ufeff\ufffd"  # controls, Cf
    "\u2014\u2013\u201c\u201d\u00ab\u00bb\u00bf\u00a1\u3001\u3002"  # P outside ASCII
    "€©®°±×÷§¶"                         # symbols (S), not punctuation
    "😀👍"                               # astral symbols
)


def build_vocab(rng):
    """A few hundred entries: the normalized pool characters as words and
    continuations (some left out, so [UNK] happens), and multi-character
    words and pieces for the longest match."""
    chars = sorted({c for c in normalize(POOL, True, True) if not c.isspace()})
    chars += sorted({c for c in normalize(POOL, False, False) if not c.isspace()} - set(chars))
    vocab = list(SPECIALS)
    for c in chars:
        if rng.random() < 0.9:
            vocab.append(c)
        if rng.random() < 0.85:
            vocab.append("##" + c)
    vocab += ["the", "cat", "sat", "un", "##want", "##ed", "runn", "##ing", "ab", "abc", "##bc", "##cd",
              "hello", "world", "naive", "cafe", "привет", "##ет", "한국", "##어", "σας", "ab##"]
    seen, out = set(), []
    for v in vocab:
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


FIXED = [
    "UNwant\u00e9d,running", "Hello, World! The cat sat.", "naïve café", "ah\u535a\u63a8zz",
    "a\n'll !!to?'d of, can't.", "Hello[MASK]world [mask] [CLS]", "\u00ad", "ΣΑΣ σας", "İstanbul",
    "abcd abc ab abcabc", "x" * 101, "ab" * 50, "한국어 かなカナ", "€5 ©x «q» ¿y", "\u200b\ufeffzero\u200ewidth",
    "tab\tnew\nline\rcr\u00a0nbsp\u3000ideo", "e\u0301 e\u0308 c\u0327", "😀 👍x", "", "   ",
]


def main():
    rng = random.Random(31)
    vocab = build_vocab(rng)
    vset = set(vocab)
    cases = []
    texts = list(FIXED)
    for _ in range(250):
        n = rng.randint(1, 40)
        t = "".join(rng.choice(POOL) for _ in range(n))
        if rng.random() < 0.1:
            t += rng.choice(SPECIALS)
        texts.append(t)
    modes = [[True, True], [False, False], [True, False], [False, True]]
    index = {v: i for i, v in enumerate(vocab)}
    for t in texts:
        cases.append({"text": t, "ids": [[index[tok] for tok in tokenize(t, vset, lower, strip)]
                                         for lower, strip in modes]})
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"generator": "bert_reference.py", "unicode": unicodedata.unidata_version,
                   "modes": modes, "vocab": vocab, "cases": cases}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {out}: {len(vocab)} tokens, {len(cases)} cases")


if __name__ == "__main__":
    main()

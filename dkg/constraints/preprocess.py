"""Sentence pre-processing before parsing: unicode, dashes, comparison signs, footnote parentheses."""

from __future__ import annotations

import re
import unicodedata

# Hyphens, en/em dashes, minus signs and the like all become "-".
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]")
_SIGNS = (("≥", " ≥ "), ("≤", " ≤ "), ("≠", " ≠ "), (">=", " ≥ "), ("=>", " ≥ "), ("<=", " ≤ "),
          ("=<", " ≤ "), ("!=", " ≠ "), ("⩾", " ≥ "), ("⩽", " ≤ "))
_NUMBER = r"\d+(?:\.\d+)?"
# "15-39" / "15 - 39" is a range; written "15 to 39" so the tokenizer and the rules see three words.
_RANGE = re.compile(rf"(?<![\w.])({_NUMBER})\s*-\s*({_NUMBER})(?![\w.])")
_NUMBER_UNIT = re.compile(rf"(?<![\w.])({_NUMBER})(y|yr|yrs|years?|cm|mo|months?)\b", re.IGNORECASE)
_SIGN_NUMBER = re.compile(rf"([<>])\s*({_NUMBER})")
_WORDS = re.compile(r"[A-Za-z]+")


def _looks_like_footnote(inner: str) -> bool:
    """Footnote texts are expanded into parentheses; they read as sentences, patient facts do not."""
    stripped = inner.strip()
    if not stripped:
        return True
    if ";" in stripped or stripped.endswith((".", "!", "?")):
        return True
    words = _WORDS.findall(stripped)
    if len(words) >= 7:
        return True
    return bool(re.match(r"(?i)(see|for|if|consider|options?|includ|e\.g|i\.e|refer)\b", stripped))


def drop_footnotes(text: str) -> str:
    """Remove parentheses whose content reads like an expanded footnote; keep short ones like "(15-39 y)"."""
    out: list[str] = []
    stack: list[int] = []
    for char in text:
        if char == "(":
            stack.append(len(out))
            out.append(char)
        elif char == ")" and stack:
            start = stack.pop()
            inner = "".join(out[start + 1:])
            if _looks_like_footnote(inner):
                del out[start:]
            else:
                out.append(char)
        else:
            out.append(char)
    return "".join(out)


def preprocess(text: str) -> str:
    """Normalise one sentence: unicode forms, dashes, ≥/≤ signs, numeric ranges, footnote parentheses.

    >>> preprocess("AYA (15–39 years), age ≥65 y")
    'AYA (15 to 39 years), age ≥ 65 y'
    """
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\u00a0", " ").replace("\u2009", " ").replace("\u202f", " ")
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = _DASHES.sub("-", text)
    text = drop_footnotes(text)
    for sign, replacement in _SIGNS:
        text = text.replace(sign, replacement)
    text = _SIGN_NUMBER.sub(r"\1 \2", text)
    text = _RANGE.sub(r"\1 to \2", text)
    text = _NUMBER_UNIT.sub(r"\1 \2", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s+\)", ")", text)
    return " ".join(text.split())

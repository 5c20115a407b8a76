"""A subtitle sentence as a teacher reads it aloud: notation spelled out, numbers as words.

``spoken(text)`` is the one rule set for every sentence: a product name or an abbreviation read as a
word gets a rule of its own (MiniLM, [CLS]). ``unspeakable(said)`` lists what
would still reach the voice as a bare symbol: the tests run it over every sentence the scenes say.
``written(text)`` is the subtitle's form of a sentence the scenes type in ASCII (``d_k`` → ``dₖ``).
"""

from __future__ import annotations

import re

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]  # fmt: skip
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand"))
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_LETTERS, _SUBSCRIPT_LETTERS = "aeoxhijklmnprstuv", "ₐₑₒₓₕᵢⱼₖₗₘₙₚᵣₛₜᵤᵥ"  # letters with a Unicode subscript
_SUBSCRIPT_SIGNS = "₀₁₂₃₄₅₆₇₈₉₋₊"  # sᵢ₋₁
_SUBSCRIPTS = str.maketrans(  # each its own word: αᵢⱼ is "alpha i j"
    {sub: f" {plain} " for sub, plain in zip(_SUBSCRIPT_LETTERS, _LETTERS, strict=True)}
    | {sub: f" {digit} " for digit, sub in enumerate(_SUBSCRIPT_SIGNS[:10])}
    | {"₋": " minus ", "₊": " plus "}
)
_TO_SUBSCRIPT = str.maketrans(_LETTERS, _SUBSCRIPT_LETTERS)
_WRITTEN = re.compile(rf"(?<![A-Za-z])([a-z])_\{{?([{_LETTERS}])\}}?(?![A-Za-z0-9])")
_UNITS = {"%": "percent", "KB": "kilobytes", "MB": "megabytes", "GB": "gigabytes", "TB": "terabytes"}

#: Whole words and symbols, replaced before numbers are read (longest first where they overlap).
_NOTATION = [
    (r"α", "alpha"),  # αᵢⱼ: alpha i j
    (  # dₖ, sᵢ₋₁
        rf"([A-Za-z])([{_SUBSCRIPT_LETTERS}{_SUBSCRIPT_SIGNS}]+)",
        lambda m: " ".join(f"{m.group(1)} {m.group(2).translate(_SUBSCRIPTS)}".split()),
    ),
    (r"√\(?([A-Za-z0-9_]+)\)?", r" the square root of \1 "),
    (r"QKᵀ", " Q K transpose "),
    (r"([A-Za-z])ᵀ", r" \1 transpose "),
    (r"softmax\(·\)", " softmax of "),
    (r"softmax\(", " softmax of ("),
    (r"\[CLS\]", " C L S "),
    (r"\[SEP\]", " sep "),
    (r"##(?=\w)", ""),  # a word piece's mark of continuation: ##ve is read ve
    (r"MiniLM", " mini L M "),
    (r"(?<=\d)\s*×\s*(?=\d)", " by "),
    (r"\s*×\s*", " times "),
    (r"\s·\s", " times "),  # X · W_q, a product of matrices
    (r"·", " dot "),  # q·k, a dot product
    (r"\bQK\b", "Q K"),
    (r"\s*→\s*", " to "),
    (r"…|\.\.\.", ", "),
    (r"\s=\s", " equals "),
    (r"\s/\s", " divided by "),
    (r"/", " over "),
    (r"\s*\+\s*", " plus "),
    (r"([A-Za-z]+)_\{?([A-Za-z0-9]+)\}?", r"\1 \2"),  # d_k, W_q, x_i, d_model
    (r"[\[\]{}]", " "),
    (r"Σ", " the sum of "),
    (r"≈", " about "),
    (r"≠", " is not equal to "),
    (r"\be([⁻⁰-⁹¹²³]+)", lambda m: f" e to the {m.group(1).translate(_SUPERSCRIPTS)} "),
]
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-−]?)(?P<whole>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<fraction>\d+))?"
    r"(?P<power>[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?(?:\s?(?P<unit>%|KB|MB|GB|TB)\b|(?P<percent>%))?"
)
_SPEAKABLE = re.compile(r"[A-Za-z\s,.;:!?'\"“”‘’()-]*")


def spoken(text: str) -> str:
    """``text`` with its notation and numbers in words, ready for a voice."""
    for pattern, replacement in _NOTATION:
        text = re.sub(pattern, replacement, text)
    text = re.sub(r"(?<=[A-Za-z])(?=\d)", " ", text)  # L6 → L 6
    text = _NUMBER.sub(_number, text).replace("-", " ")  # self-attention, 384-dimensional: no minus left
    text = re.sub(r"[“”\"‘’]|(?<!\w)'|'(?!\w)", "", text)  # quotes are not read
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def written(text: str) -> str:
    """``text`` as a subtitle shows it: a lowercase symbol's one-letter subscript in its Unicode form
    (d_k → dₖ, x_i → xᵢ), as the screen sets it. Matrices keep the underscore so that W_q, W_k and W_v
    read alike (Unicode has no subscript q), and so do longer names (d_model)."""
    return _WRITTEN.sub(lambda m: m.group(1) + m.group(2).translate(_TO_SUBSCRIPT), text)


def unspeakable(said: str) -> set[str]:
    """The characters of a spoken form (``spoken(text)`` or an override) that a voice cannot read."""
    return {char for char in said if not _SPEAKABLE.fullmatch(char)}


def _number(match: re.Match[str]) -> str:
    sign = "minus " if match["sign"] else ""
    whole = int(match["whole"].replace(",", ""))
    if match["power"]:
        return sign + power_words(whole, int(match["power"].translate(_SUPERSCRIPTS)))
    said = integer_words(whole)
    if match["fraction"]:
        said += " point " + " ".join(_ONES[int(d)] for d in match["fraction"])
    unit = match["unit"] or match["percent"]
    return f" {sign}{said}{' ' + _UNITS[unit] if unit else ''} "


def power_words(base: int, exponent: int) -> str:
    """10⁶ → "a million"; other powers as "two to the eight"."""
    names = {3: "a thousand", 6: "a million", 9: "a billion", 12: "a trillion"}
    if base == 10 and exponent in names:
        return names[exponent]
    return f"{integer_words(base)} to the {integer_words(exponent)}"


def integer_words(n: int) -> str:
    """A whole number in words: 4000 → "four thousand", 122 → "one hundred twenty-two"."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else "")
    if n < 1000:
        rest = f" {integer_words(n % 100)}" if n % 100 else ""
        return f"{_ONES[n // 100]} hundred{rest}"
    for scale, name in _SCALES:
        if n >= scale:
            rest = f" {integer_words(n % scale)}" if n % scale else ""
            return f"{integer_words(n // scale)} {name}{rest}"
    raise AssertionError("unreachable")  # every n >= 1000 has a scale

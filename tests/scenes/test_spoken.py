"""The spoken form of narration: notation and numbers as a teacher reads them (worked by hand)."""

import pytest

from scenes.narration.spoken import integer_words, spoken, unspeakable, written


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("0.61", "zero point six one"),
        ("-1.2", "minus one point two"),
        ("−0.05", "minus zero point zero five"),
        ("10⁶", "a million"),
        ("2⁸", "two to the eight"),
        ("4,000 pairs", "four thousand pairs"),
        ("122.44", "one hundred twenty two point four four"),
        ("100,000 tokens", "one hundred thousand tokens"),
        ("40 GB", "forty gigabytes"),
        ("61%", "sixty one percent"),
        ("up to 1.", "up to one."),
        ("layer 1, head 3", "layer one, head three"),
    ],
)
def test_numbers_are_read_as_numbers(text, said):
    assert spoken(text) == said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("the grid QKᵀ", "the grid Q K transpose"),
        ("divide by √d_k", "divide by the square root of d k"),
        ("divide by √dₖ", "divide by the square root of d k"),  # a Unicode subscript, as captions write it
        ("qᵢ · kⱼ", "q i times k j"),
        ("the state sᵢ₋₁", "the state s i minus one"),  # subtitles set the RNN's previous state so
        ("αᵢⱼ is its weight", "alpha i j is its weight"),
        ("√4 = 2", "the square root of four equals two"),
        ("Q = X · W_q", "Q equals X times W q"),
        ("the dot product q·k", "the dot product q dot k"),
        ("d_model × d_k = 4 × 2", "d model times d k equals four by two"),
        ("d_k = d_model / h", "d k equals d model divided by h"),
        ("softmax(·) of a row", "softmax of of a row"),
        ("x_i scores every x_j", "x i scores every x j"),
        ("I → love", "I to love"),
        ("one, two…", "one, two,"),
        ("[CLS] at the start", "C L S at the start"),
        ("all-MiniLM-L6-v2", "all mini L M L six v two"),
        ("a 384-dimensional space", "a three hundred eighty four dimensional space"),
        ("Entry (1, 1): multiply", "Entry (one, one): multiply"),
        ("1/(1+e⁻²)", "one over (one plus e to the minus two)"),
        ("'apple' and “tech”", "apple and tech"),
    ],
)
def test_notation_is_spelled_out(text, said):
    assert spoken(text) == said


def test_integers_in_words():
    assert [integer_words(n) for n in (0, 13, 20, 45, 100, 999, 1000, 1001, 7_000_000, 10**10)] == [
        "zero",
        "thirteen",
        "twenty",
        "forty-five",
        "one hundred",
        "nine hundred ninety-nine",
        "one thousand",
        "one thousand one",
        "seven million",
        "ten billion",
    ]


def test_what_a_voice_cannot_read_is_named():
    assert unspeakable("d_k over √2 is QKᵀ × 3") == {"_", "√", "ᵀ", "×", "2", "3"}
    assert unspeakable(spoken("d_k over √2 is QKᵀ × 3")) == set()


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("divide by √d_k = 1.41", "divide by √dₖ = 1.41"),
        ("x_i scores every x_j", "xᵢ scores every xⱼ"),
        ("d_{v} columns", "dᵥ columns"),
        ("W_q, W_k and W_v", "W_q, W_k and W_v"),  # no subscript q in Unicode: the matrices read alike
        ("d_model = 4", "d_model = 4"),  # a longer name stays as papers' code writes it
        ("run_time and k_1", "run_time and k_1"),  # not a symbol with a letter subscript
    ],
)
def test_subtitles_set_subscripts_as_the_screen_does(typed, shown):
    assert written(typed) == shown
    assert spoken(shown) == spoken(typed)  # the voice reads both alike


def test_a_word_pieces_mark_is_not_read():
    assert spoken("'unveiled' splits into 'un', '##ve' and '##iled'.") == "unveiled splits into un, ve and iled."

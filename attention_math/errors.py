"""The one error type a user of the example file ever sees."""

from __future__ import annotations


class ExampleError(Exception):
    """An example file that cannot be used, with where and what was expected.

    Parameters
    ----------
    path
        The example file.
    key
        Dotted key path inside the file (``worked_example.heads[1].W_q``), or ``""``
        when the problem concerns the whole file.
    message
        What was expected, in a sentence a user can act on.
    """

    def __init__(self, path: str, key: str, message: str) -> None:
        self.path = str(path)
        self.key = key
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}: {self.key}" if self.key else self.path
        return f"{where}: {self.message}"


class UndeclaredSectionError(LookupError):
    """A scene read an example section it did not declare in the lesson list."""

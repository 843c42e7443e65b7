"""Text that holds commands to copy (``solstice resume ...``): each command starts a line of
its own and, where it is wider than the screen, breaks between its words with a trailing
``\\`` (the shell joins the lines again). The terminal's own wrap split a command over two
lines, and the copied command lost its ``--home``.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from rich.text import Text
from textual.widgets import Static

# A command quoted in a sentence ('solstice resume g --home h'), or one on a line of its own.
_COMMAND = re.compile(r"'(solstice [^'\n]+)'|^(solstice [^\n]+)$", re.MULTILINE)
_WORD = re.compile(r"(?:'[^']*'|\"[^\"]*\"|\S)+")  # a shell word (a quoted path stays whole)
INDENT = "  "


def wrap_command(command: str, width: int) -> list[str]:
    """``command`` in lines of at most ``width`` columns, every line but the last ending in
    ``\\``: broken between its words, and a word longer than a line (a join code) inside
    it, its next part at the start of the line (backslash-newline joins it up again)."""
    room = width - 2  # for the " \" of a line that goes on
    lines: list[str] = []
    line = ""
    for word in _WORD.findall(command):
        if line and len(line) + 1 + len(word) > room:
            lines.append(line + " \\")
            line = INDENT
        elif line:
            line += " "
        while len(line) + len(word) > room and "'" not in word and len(word) > room // 2:
            cut = max(1, room - len(line))
            lines.append(line + word[:cut] + "\\")
            line, word = "", word[cut:]
        line += word
    lines.append(line)
    return lines


def wrap_path(path: str, width: int) -> list[str]:
    """``path`` in lines of at most ``width``, broken only after a "/" (a name longer than a
    line is cut, nothing else): the terminal's own wrap split names mid-word."""
    parts = [part + "/" for part in path.split("/")[:-1]] + [path.split("/")[-1]]
    lines = [""]
    for part in parts:
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
        while len(lines[-1]) > width:
            lines[-1:] = [lines[-1][:width], lines[-1][width:]]
    return [line for line in lines if line]


def layout(text: str, width: int) -> list[str]:
    """``text`` wrapped at ``width``, its commands on lines of their own (``wrap_command``)."""
    width = max(20, width)
    out: list[str] = []

    def prose(part: str) -> None:
        for paragraph in part.split("\n"):
            paragraph = paragraph.strip()
            for line in textwrap.wrap(paragraph, width, break_on_hyphens=False,
                                      break_long_words=False):
                # A path longer than the line breaks after a "/", never inside a name.
                out.extend(wrap_path(line, width) if len(line) > width else [line])

    pos = 0
    for match in _COMMAND.finditer(text):
        prose(text[pos:match.start()])
        out.extend(wrap_command(match.group(1) or match.group(2), width))
        pos = match.end()
    prose(text[pos:])
    return out


class CommandText(Static):
    """A paragraph that may hold commands, laid out by ``layout`` at the widget's width."""

    def __init__(self, text: str, style: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text, self.tone = text, style

    def render(self) -> Text:
        width = self.size.width or (self.app.size.width - 4 if self.is_attached else 76)
        return Text("\n".join(layout(self.text, width)), style=self.tone)

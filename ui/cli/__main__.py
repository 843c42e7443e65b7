"""``python -m ui.cli``: the same as the ``solstice`` command."""

from ui.cli.commands import main

main()

"""The ``solstice`` command line (typer): one module per command group, ``commands`` joins them."""

from ui.cli.commands import app, main

__all__ = ["app", "main"]

"""The user interfaces: ``cli/`` the ``solstice`` command line (typer), ``app/`` the Textual
terminal app."""

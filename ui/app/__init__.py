"""The Textual terminal app: screens, widgets, and the bridge between Textual and trio."""

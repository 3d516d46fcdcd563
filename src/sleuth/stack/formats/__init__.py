"""Tolerant readers for the config formats manifests come in; each returns None on bad input."""

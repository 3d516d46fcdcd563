"""Deterministic detectors, one module per ecosystem."""

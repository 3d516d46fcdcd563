"""CLI command modules; each registers its commands on ``sleuth.cli.app`` when imported."""

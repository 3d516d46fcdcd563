"""The CLI's commands, one module per command or close family, each a few lines over an
operation; :mod:`sleuth.cli` registers them. ``options`` holds the shared option types and
the run's state, ``output`` everything printed. Nothing here imports :mod:`sleuth.cli`."""

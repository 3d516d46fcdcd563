"""Jobs that outlive the process that accepted them, on a task engine (pydocket).

``engine`` opens the engine from the settings (the shared Redis, else an in-process store
with the same code path), ``crawljob`` is a crawl job (its page task and the crawler that
reads it), ``store`` its record and the one place its status ends, ``worker`` runs the tasks
(``sleuth serve`` in-process, ``sleuth worker`` on any machine), and ``webhook`` tells the
caller's URL, signed, when a job ends. ``sleuth serve`` opens the engine when it starts,
and ``sleuth worker`` runs on it; the engine itself (pydocket) comes with the ``jobs``
extra, and :func:`~sleuth.jobs.engine.open_engine` says so when it is missing.
"""

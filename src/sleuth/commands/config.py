"""``sleuth config show``: the effective settings and where each came from."""

from __future__ import annotations

import typer

from sleuth.commands import output
from sleuth.commands.options import STATE, JsonFlag, settings

config_app = typer.Typer(help="Show the effective settings.", no_args_is_help=True)


@config_app.command("show")
def config_show(json_output: JsonFlag = False) -> None:
    """Print the effective settings (secrets masked) and where each came from."""
    from sleuth.config import describe

    STATE.json = json_output
    loaded = settings()
    rows = describe(loaded)
    if json_output:
        # Numbers, booleans, lists and null keep their type; strings come from
        # describe(), which masks secrets (keys, passwords inside URLs).
        typed = loaded.model_dump(mode="json")
        output.print_json(
            {
                name: {
                    "value": shown if isinstance(typed[name], str) else typed[name],
                    "source": source,
                }
                for name, shown, source in rows
            }
        )
        return
    width = max(len(name) for name, _, _ in rows)
    for name, value, source in rows:
        output.out(f"{name:<{width}}  {value or '-'}  ({source})\n")

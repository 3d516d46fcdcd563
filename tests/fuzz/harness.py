"""Running a target: hypothesis generates, a worker process executes, crashes are collected.

Hypothesis is the generator only: the body never raises, so a crash does not stop the run
and every target gets its whole budget; each distinct crash (exception type and the line
in sleuth that raised it) is kept once, with the smallest input that produced it. A hang
is caught twice: a CPU-time timer (``SIGPROF``, so a busy machine does not make slow
inputs look hung) interrupts Python code past the per-input limit, and a wall-clock
faulthandler watchdog ends the worker when C code holds on, or the input waits on
something forever, in which case the parent records the input the worker saved first.
"""

from __future__ import annotations

import faulthandler
import multiprocessing as mp
import os
import pickle
import signal
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings

from fuzz.targets import TARGETS, Target

SRC = str(Path(__file__).resolve().parents[2] / "src")


class Hang(BaseException):
    """The input ran past its time limit (a BaseException, so no ``except Exception`` eats it)."""


@dataclass
class Crash:
    signature: str  # "TypeError at sleuth/llm/cassette.py:150"
    message: str
    trace: str
    example: str  # repr of the smallest input that produced it
    count: int = 1
    raw: bytes = b""  # that input, pickled whole (the repr is cut), to replay it


@dataclass
class Outcome:
    target: str
    inputs: int = 0
    seconds: float = 0.0
    crashes: dict[str, Crash] = field(default_factory=dict)

    def add(self, crash: Crash) -> None:
        known = self.crashes.get(crash.signature)
        if known is None:
            self.crashes[crash.signature] = crash
            return
        known.count += crash.count
        if len(crash.example) < len(known.example):
            known.example, known.trace, known.message = crash.example, crash.trace, crash.message
            known.raw = crash.raw


def _where(exc: BaseException) -> str:
    """The innermost frame inside sleuth's own code, else the innermost frame at all."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [frame for frame in frames if frame.filename.startswith(SRC)]
    frame = (ours or frames or [None])[-1]
    if frame is None:
        return "?"
    name = frame.filename
    name = name[len(SRC) + 1 :] if name.startswith(SRC) else os.path.basename(name)
    return f"{name}:{frame.lineno}"


def _crash(exc: BaseException, value: Any) -> Crash:
    kind = "hang" if isinstance(exc, Hang) else type(exc).__name__
    return Crash(
        signature=f"{kind} at {_where(exc)}",
        message=str(exc)[:300],
        trace="".join(traceback.format_exception(exc))[-4000:],
        example=_shown(value),
        raw=pickle.dumps(value),
    )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 20_000 else text[:20_000] + "...(cut)"


def _wall_limit(timeout: float) -> float:
    """Seconds of wall time before the watchdog ends a worker: generous, for busy machines."""
    return timeout * 4 + 5


def _alarm(signum: int, frame: Any) -> None:
    if _ARMED[0]:
        raise Hang("the input ran past its time limit")


_ARMED = [False]


def run_inputs(target: Target, count: int, timeout: float, rng_seed: int, last: Path) -> Outcome:
    """Feed ``count`` generated inputs to ``target`` in this process."""
    outcome = Outcome(target.name)
    signal.signal(signal.SIGPROF, _alarm)
    started = time.perf_counter()

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @seed(rng_seed)
    @given(target.strategy)
    def body(value: Any) -> None:
        if outcome.inputs >= count:
            return
        outcome.inputs += 1
        last.write_bytes(pickle.dumps(_shown(value)))
        faulthandler.dump_traceback_later(_wall_limit(timeout), exit=True)
        _ARMED[0] = True
        signal.setitimer(signal.ITIMER_PROF, timeout)
        try:
            target.run(value)
        except target.allowed:
            pass
        except (Exception, Hang) as exc:
            _ARMED[0] = False
            outcome.add(_crash(exc, value))
        finally:
            _ARMED[0] = False
            signal.setitimer(signal.ITIMER_PROF, 0)
            faulthandler.cancel_dump_traceback_later()

    body()
    outcome.seconds = time.perf_counter() - started
    return outcome


def _worker(name: str, count: int, timeout: float, rng_seed: int, last: str, pipe: Any) -> None:
    os.environ.update({"HYPOTHESIS_NO_PLUGINS": "1"})
    for key in [key for key in os.environ if key.startswith("SLEUTH_")]:
        del os.environ[key]
    outcome = run_inputs(TARGETS[name], count, timeout, rng_seed, Path(last))
    pipe.send(outcome)
    pipe.close()


def run_target(name: str, count: int, timeout: float, rng_seed: int) -> Outcome:
    """Run a target in worker processes until its budget is spent, surviving hard hangs."""
    context = mp.get_context("fork")
    total = Outcome(name)
    attempt = 0
    with tempfile.TemporaryDirectory(prefix="sleuth-fuzz-") as scratch:
        last = Path(scratch) / "last-input"
        while total.inputs < count and attempt < 20:
            receive, send = context.Pipe(duplex=False)
            worker = context.Process(
                target=_worker,
                args=(name, count - total.inputs, timeout, rng_seed + attempt, str(last), send),
            )
            started = time.perf_counter()
            worker.start()
            send.close()
            try:
                result: Outcome | None = receive.recv()
            except EOFError:  # the worker died: the watchdog ended a hang in C code
                result = None
            worker.join()
            attempt += 1
            if result is not None:
                total.inputs += result.inputs
                total.seconds += result.seconds
                for crash in result.crashes.values():
                    total.add(crash)
                if result.inputs == 0:
                    break  # the strategy has nothing more to give
                continue
            total.seconds += time.perf_counter() - started
            example = pickle.loads(last.read_bytes()) if last.exists() else "?"
            total.inputs += 1  # the input that hung; the inputs before it are not counted
            code = worker.exitcode or 0
            if code < 0:  # a signal, such as SIGSEGV from a C extension
                signature, message = f"worker killed by signal {-code}", "the process died"
            else:  # the faulthandler watchdog exits with 1
                signature = f"hang (worker exit {code})"
                message = f"no answer within {_wall_limit(timeout):g} s"
            total.add(Crash(signature, message, "", example))
    return total

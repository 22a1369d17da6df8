"""Progress bars for Simulation.integrate, Simulation.step and nbody.run.

A progress object has three methods, called by the engine's run loop between chunks of steps:
``started(first_step, last_step)``, ``advanced(step, steps, seconds)`` and ``ended()``. Pass
your own as ``progress=`` to draw it elsewhere (a logging handler, a GUI).
"""
import sys
import time

__all__ = ["TextProgress", "make_progress"]


def _in_notebook():
    # A Jupyter kernel: its stderr is no terminal, yet it draws '\r' the way a terminal does.
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    try:
        return shell.get_ipython() is not None
    except Exception:  # pragma: no cover - an unusual IPython
        return False


def _format_seconds(s):
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"


class TextProgress:
    """One line of text, redrawn in place with '\\r' at most every ``interval`` seconds:
    ``step 1200/5000 (24%)  843 steps/s  ETA 4.5 s``. Works on terminals and in notebooks
    (plain text, no widgets)."""

    def __init__(self, stream=None, interval=0.2, width=60):
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.width = width
        self._first = self._last = 0
        self._start = self._drawn_at = 0.0
        self._drawn = False

    def started(self, first_step, last_step):
        self._first, self._last = first_step, last_step
        self._start = time.monotonic()
        self._drawn_at = 0.0
        self._drawn = False

    def advanced(self, step, steps, seconds):
        now = time.monotonic()
        if self._drawn and now - self._drawn_at < self.interval and step < self._last:
            return
        self._drawn_at = now
        done = step - self._first
        total = max(1, self._last - self._first)
        elapsed = now - self._start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self._last - step) / rate if rate > 0 else 0.0
        filled = int(20 * done / total)
        bar = "#" * filled + "." * (20 - filled)
        line = f"[{bar}] step {step}/{self._last} ({100 * done / total:3.0f}%)  {rate:.4g} steps/s  ETA {_format_seconds(eta)}"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self._drawn = True

    def ended(self):
        if self._drawn:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def make_progress(progress):
    """The progress object for a ``progress=`` argument: None (a bar on a terminal or in a
    notebook, nothing otherwise), True (always a bar), False (none), or an object of your own."""
    if progress is None:
        stream = sys.stderr
        interactive = _in_notebook() or (hasattr(stream, "isatty") and stream.isatty())
        return TextProgress() if interactive else None
    if progress is True:
        return TextProgress()
    if progress is False:
        return None
    for name in ("started", "advanced", "ended"):
        if not callable(getattr(progress, name, None)):
            raise TypeError(f"progress: {type(progress).__name__} has no method {name}()")
    return progress

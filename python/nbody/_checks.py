"""Checks of the Python API's own arguments (those that are not run parameters, which the
engine's schema checks): each error names the argument and the value."""
import math
import operator

import numpy as np

from ._core import InputError

_NUMBER_TYPES = (int, float, np.integer, np.floating)
_MAX_STEPS = 2**62


def number(name, value):
    """A finite float from a real number; TypeError (not a number) or InputError (nan, inf)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, _NUMBER_TYPES):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__} {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise InputError(f"{name}: must be a finite number (got {v!r})")
    return v


def positive(name, value):
    v = number(name, value)
    if not v > 0:
        raise InputError(f"{name}: must be > 0 (got {v!r})")
    return v


def whole(name, value, minimum, maximum=_MAX_STEPS):
    """An int from an integer (or a float with a whole value) in [minimum, maximum]."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a whole number, got a bool")
    if isinstance(value, (float, np.floating)):
        if not (math.isfinite(value) and float(value).is_integer()):
            raise InputError(f"{name}: must be a whole number (got {float(value)!r})")
        k = int(value)
    else:
        try:
            k = operator.index(value)
        except TypeError:
            raise TypeError(f"{name}: expected a whole number, got {type(value).__name__} {value!r}") from None
    if not minimum <= k <= maximum:
        raise InputError(f"{name}: must be in [{minimum}, {maximum}] (got {k})")
    return k


def ids(value, start, k):
    """k ids (uint64) from ``value`` (None: start, start + 1, ...): whole numbers in [0, 2^64)."""
    if value is None:
        return np.arange(start, start + k, dtype=np.uint64)
    arr = np.asarray(value)
    if arr.ndim == 1 and arr.shape == (k,) and arr.dtype.kind in "ui":  # the common case, at once
        if arr.dtype.kind == "i" and k and arr.min() < 0:
            i = int(np.argmin(arr))
            raise InputError(f"id[{i}]: must be in [0, 2^64 - 1] (got {int(arr[i])})")
        return arr.astype(np.uint64)
    raw = np.asarray(value, dtype=object).reshape(-1) if np.ndim(value) > 0 else [value]
    if np.ndim(value) > 1 or len(raw) != k:
        raise InputError(f"id: must have {k} value{'s' if k != 1 else ''} (one for each body), got shape "
                         f"{np.shape(value)}")
    out = np.empty(k, dtype=np.uint64)
    for i, v in enumerate(raw):
        where = f"id[{i}]" if np.ndim(value) > 0 else "id"
        if isinstance(v, (bool, np.bool_)) or isinstance(v, (float, np.floating)):
            raise TypeError(f"{where}: expected a whole number, got {type(v).__name__} {v!r}")
        try:
            n = operator.index(v)
        except TypeError:
            raise TypeError(f"{where}: expected a whole number, got {type(v).__name__} {v!r}") from None
        if not 0 <= n < 2**64:
            raise InputError(f"{where}: must be in [0, 2^64 - 1] (got {n})")
        out[i] = n
    return out


def float_array(name, value):
    """A float64 array of ``value``, or TypeError naming ``name`` for what is not numbers."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name}: expected numbers, got {type(value).__name__} {value!r}")
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name}: expected numbers ({e})") from None


def finite_array(name, a):
    """InputError naming the first value of float array ``a`` that is not finite."""
    bad = np.flatnonzero(~np.isfinite(a.reshape(a.shape[0], -1)).all(axis=1))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{name}: body {i} of this call is not finite (got {a[i].tolist()!r})")


def masses(m):
    """InputError naming the first mass that is not finite and > 0."""
    finite_array("m", m)
    bad = np.flatnonzero(~(m > 0))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"m: must be > 0 (got {m[i]!r} for body {i} of this call)")

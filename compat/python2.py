"""Python 2's meaning of `/` and `round`, for modules the rewrite converted from Python 2 (codemods/python2.py).

Without `from __future__ import division`, Python 2's `/` floored when both operands were integers: Python
ints, integer numpy arrays and scalars, and integer tensors alike (TensorFlow's `Tensor.__div__` was
`tf.compat.v1.div`). Its `round` rounded half away from zero, on the float's exact value, and returned a
float. Python 3 does neither; 2to3 leaves both as they were, so the converted code calls these instead.
"""

from __future__ import annotations

import decimal
import math
import numbers
import operator

# Enough digits for any double's exact decimal value, so quantize never runs out of precision.
_EXACT_FRACTION_DIGITS = 1074  # a double's exact decimal value has at most this many digits after the point
_EXACT = decimal.Context(prec=1100, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def classic_division(dividend, divisor):
    """`dividend / divisor` as Python 2 computed it: floor division of integers, true division otherwise."""
    if _integral(dividend) and _integral(divisor):
        return dividend // divisor
    return dividend / divisor


def classic_inplace_division(target, divisor):
    """`target /= divisor` as Python 2 computed it (in place where `target` is mutable, as a numpy array)."""
    if _integral(target) and _integral(divisor):
        return operator.ifloordiv(target, divisor)
    return operator.itruediv(target, divisor)


def classic_round(number, ndigits=0):
    """`round(number, ndigits)` as Python 2.7 computed it: half away from zero, a float."""
    value = float(number)
    ndigits = operator.index(ndigits)
    if not math.isfinite(value) or ndigits > _EXACT_FRACTION_DIGITS:
        return value
    quantum = decimal.Decimal(1).scaleb(-ndigits)
    rounded = decimal.Decimal(value).quantize(quantum, rounding=decimal.ROUND_HALF_UP, context=_EXACT)
    return float(rounded)


def _integral(value) -> bool:
    """Whether Python 2's `/` saw an integer: a Python or numpy integer (or bool), or an integer array or tensor."""
    if isinstance(value, numbers.Integral):
        return True
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return False
    kind = getattr(dtype, "kind", None)  # numpy's dtype
    if isinstance(kind, str):
        return kind in "iub"
    return bool(getattr(dtype, "is_integer", False))  # TensorFlow's DType

"""Named records of compiled code: mutable structs whose fields are read and set by
name (numba StructRef types), built inside compiled code with :func:`new`.

A record type is a subclass of :class:`Record` made once per kind of record, and one
instance of it per field list::

    class EasyQueue(Record):
        '''The waiting jobs of FCFS and EASY.'''

    EASY_QUEUE = EasyQueue([("queue", int64[:]), ("head", int64), ...])

A record made with :func:`new` has every field zeroed (arrays empty-handed, numbers 0);
compiled code then sets each field. Each kind of record is its own type, so a compiled
function can be specialised per kind (the policy protocol of ``schedsim.kernel.loop``).
"""

from __future__ import annotations

from numba.core import types
from numba.experimental import structref
from numba.experimental.structref import new

__all__ = ["Record", "new", "record_type"]


class Record(types.StructRef):
    """Base of the record types: fields keep their declared types."""

    def preprocess_fields(self, fields):  # type: ignore[no-untyped-def]
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


def record_type(cls: type[Record]) -> type[Record]:
    """Class decorator: register a :class:`Record` subclass with numba."""
    return structref.register(cls)

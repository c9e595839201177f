"""The compiled engine: ``schedsim.engine``'s mechanisms over arrays, compiled once and
shared by every policy that has a compiled path (``schedsim.policies.compiled``).

* :mod:`~schedsim.kernel.cache`: the decorator of every compiled function and the disk
  cache keyed to the compiled code's version (:mod:`~schedsim.kernel.version`, no numba);
* :mod:`~schedsim.kernel.ahead`: the entry points of the FCFS, EASY and conservative runs
  of an SWF file compiled ahead of time, a library that loads without numba;
* :mod:`~schedsim.kernel.records`: named records (mutable structs) of compiled code;
* :mod:`~schedsim.kernel.arrays`: unsigned indices and copies between arrays;
* :mod:`~schedsim.kernel.events`: the event heap;
* :mod:`~schedsim.kernel.profile`: the availability profile;
* :mod:`~schedsim.kernel.backfilling`: shadow time and extra processors;
* :mod:`~schedsim.kernel.loop`: the engine's state, decisions, policy protocol and loop;
* :mod:`~schedsim.kernel.whole`: the Python side of a whole run (columns in, a
  ``Schedule`` out), and :mod:`~schedsim.kernel.codes`, its codes (no numba).
"""

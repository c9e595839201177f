"""The compiled paths of the paper policies: each policy's state as a record and its
decisions, run by the shared compiled engine (``schedsim.kernel``), tested equal to the
Python policy under ``schedsim.engine`` (``tests/test_compiled_conformance.py``); ``goal``
and ``hrf`` are the one step that their Python policy calls (the goal-oriented search,
HRF's Algorithm 1), each tested equal to its Python reference."""

"""The compiled engine's job states and refused-decision codes (the same job states as
``schedsim.engine``), apart from the compiled code so that reading an outcome needs no
numba."""

NOT_ARRIVED, WAITING, RUNNING, DONE, SUSPENDED = 0, 1, 2, 3, 4
NOT_WAITING, NO_ROOM, BAD_SIZE, NOT_RUNNING, NOT_SUSPENDED, PAST_WAKE_UP, BAD_PROCESSORS = (
    1, 2, 3, 4, 5, 6, 7)
OUT_OF_LOADS = -1  # more load redraws than the rows given
ERRORS = {NOT_WAITING: "is not waiting", NO_ROOM: "asks more processors than are free",
          BAD_SIZE: "gets a processor count its size does not allow",
          NOT_RUNNING: "is not running (suspend)", NOT_SUSPENDED: "is not suspended (resume)",
          PAST_WAKE_UP: "asked a wake-up that is not in the future",
          BAD_PROCESSORS: "was given processors that are not free in its partition"}

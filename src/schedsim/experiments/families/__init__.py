"""One module per paper family; a config section ``<name>`` loads ``families/<name>.py``.

Each module defines ``FAMILY`` (a :class:`schedsim.experiments.family.Family`) and
registers its claims, its derived and example functions and its own figures.
"""

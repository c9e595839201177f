"""Errors that the command line reports as one line and exit code 2."""


class InputError(Exception):
    """Bad user input: a malformed file line, an unknown name, a value out of range.

    The message is complete on its own (file, line, field or parameter, allowed
    values); the command line prints it as one line and exits with code 2.
    """

"""The commands of ``tigris``: a module each, with its options beside its handler.

Every command module has ``add_to(subparsers)``, which declares the command and its
options, and ``run(args)``, its handler; ``tigris.cli`` lists them in the order of
``tigris --help``.  A handler imports what it runs inside ``run``, so that ``tigris --help``
stays quick.  ``options`` holds the argument types and the options several commands
share, ``games`` the reading of a game or position named on the command line.
"""

__all__ = []      # the command modules are imported by name (tigris.cli.COMMANDS)

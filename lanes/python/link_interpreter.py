"""Links the path given to the interpreter that runs this script.

The matrix starts the python peers through that link, so that a launcher
in front of the interpreter (pyenv's shims are a shell and its helpers,
some 0.15 to 0.7 s and several processes per start) is no part of a
peer's start-up, memory or CPU: the peer is the interpreter alone.
"""

import os
import sys


def main(argv: list[str]) -> int:
    """Writes the link named by argv[1]; returns the exit status."""
    if len(argv) != 2:
        print("usage: link_interpreter.py LINK", file=sys.stderr)
        return 2
    link = argv[1]
    target = os.path.realpath(sys.executable)
    if not sys.executable or not os.access(target, os.X_OK):
        print(f"link_interpreter.py: no interpreter path ({sys.executable!r})",
              file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(link) or ".", exist_ok=True)
    fresh = link + ".new"
    if os.path.lexists(fresh):
        os.unlink(fresh)
    os.symlink(target, fresh)
    os.replace(fresh, link)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

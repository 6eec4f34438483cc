"""crossrun python server, run from the source tree: python3 -B lanes/python/server.py ..."""

from crossrun_python.server import main

main()

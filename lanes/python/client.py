"""crossrun python client, run from the source tree: python3 -B lanes/python/client.py ..."""

from crossrun_python.client import main

main()

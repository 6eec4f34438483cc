/* crossrun: runs every client runtime of a wire protocol against every
 * server runtime and writes what it saw as evidence. */
#include <signal.h>
#include <stdio.h>

#include "runner/commands.h"

int main(int argc, char **argv)
{
#ifdef SIGPIPE
  /* A closed output pipe (`crossrun quick | head -1`) must not kill a run
   * half way: writes then fail with EPIPE, which the commands survive.
   * Peers are spawned with every signal at its default. */
  signal(SIGPIPE, SIG_IGN);
#endif
  return commands_main(argc, argv, stdout, stderr);
}

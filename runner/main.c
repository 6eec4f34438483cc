/* crossrun: runs every client runtime of a wire protocol against every
 * server runtime and writes what it saw as evidence. */
#include <stdio.h>

#include "runner/commands.h"

int main(int argc, char **argv)
{
  return commands_main(argc, argv, stdout, stderr);
}

/* This program's environment: see tests/lib_env.h. */
#include "tests/lib_env.h"

#include <stdlib.h>

int env_set(const char *name, const char *value)
{
#ifdef _WIN32
  return _putenv_s(name, value != NULL ? value : "") == 0 ? 0 : -1;
#else
  return (value != NULL ? setenv(name, value, 1) : unsetenv(name)) == 0 ? 0
                                                                        : -1;
#endif
}

/* Setting and removing a variable of this program's environment, which
 * the programs it starts inherit: setenv and unsetenv, or on Windows,
 * whose C runtime has neither, _putenv_s (which sets the system's copy
 * of the environment too, the one libuv and CreateProcess read). */
#ifndef CROSSRUN_TESTS_LIB_ENV_H
#define CROSSRUN_TESTS_LIB_ENV_H

/* Sets name to value, or removes name when value is NULL. An empty value
 * removes the variable on Windows, where no variable is empty. Returns 0,
 * or -1 when name is not a variable's name or memory ran out. */
int env_set(const char *name, const char *value);

#endif

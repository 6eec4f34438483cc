/* Shell-style name patterns: '*' matches any run of characters, '?' any
 * one byte; no classes, no escapes. Lane selection and artifact names. */
#ifndef CROSSRUN_RUNNER_GLOB_H
#define CROSSRUN_RUNNER_GLOB_H

/* 1 when name matches pattern, else 0. */
int glob_match(const char *pattern, const char *name);

#endif

/* What a person reads at the end of a run: a table per lane, every failure
 * with its reproduce line, and the cleanliness counts. */
#ifndef CROSSRUN_RUNNER_SUMMARY_H
#define CROSSRUN_RUNNER_SUMMARY_H

#include <stdio.h>

#include "evidence/write/evidence.h"

void summary_print(FILE *f, const struct evidence_run *run);

/* 1 when every sample of every lane passed and every cleanliness count
 * that must be zero is zero. Unavailable lanes do not count against. */
int summary_all_passed(const struct evidence_run *run);

#endif

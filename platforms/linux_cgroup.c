/* Whether a per-peer cgroup v2 could give a peer's tree figures here
 * (memory.peak and cpu.stat of a cgroup holding the whole tree), and when
 * not, why: the evidence says it (machine.cgroup_v2), beside the tree
 * figures that come from the spawn helper, a child subreaper, whatever
 * the answer. Such a cgroup needs a cgroup v2 hierarchy, the memory and
 * cpu controllers in it (a hybrid host keeps them in cgroup v1), and this
 * process's cgroup writable by its user (delegated: it can make children
 * and move processes into them). Part of the Linux implementation of
 * platforms/platform.h. */
#include "platforms/linux_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The mount point of the cgroup2 file system in mountinfo, and whether
 * cgroup v1 holds the memory or the cpu controller (a hybrid host).
 * Returns 1 when cgroup2 is mounted. */
static int find_mounts(char *mount, size_t len, int *v1_holds)
{
  char line[1024];
  FILE *f = fopen("/proc/self/mountinfo", "re");
  int found = 0;

  *v1_holds = 0;
  if (f == NULL)
    return 0;
  while (fgets(line, sizeof(line), f) != NULL) {
    /* "ID PARENT MAJ:MIN ROOT MOUNT OPTIONS [TAGS] - TYPE SOURCE SUPER" */
    char point[512], type[64], super[512] = "";
    const char *dash = strstr(line, " - ");
    if (dash == NULL || sscanf(line, "%*s %*s %*s %*s %511s", point) != 1 ||
        sscanf(dash + 3, "%63s %*s %511s", type, super) < 1)
      continue;
    if (strcmp(type, "cgroup2") == 0 && !found) {
      snprintf(mount, len, "%s", point);
      found = 1;
    } else if (strcmp(type, "cgroup") == 0) {
      /* The controllers are in the super block's options. */
      char *opt, *save = NULL;
      for (opt = strtok_r(super, ",", &save); opt != NULL;
           opt = strtok_r(NULL, ",", &save))
        if (strcmp(opt, "memory") == 0 || strcmp(opt, "cpu") == 0)
          *v1_holds = 1;
    }
  }
  fclose(f);
  return found;
}

/* This process's cgroup v2 path ("0::PATH" of /proc/self/cgroup). */
static int own_path(char *path, size_t len)
{
  char line[1024];
  FILE *f = fopen("/proc/self/cgroup", "re");
  int found = 0;

  if (f == NULL)
    return 0;
  while (!found && fgets(line, sizeof(line), f) != NULL)
    if (strncmp(line, "0::", 3) == 0) {
      line[strcspn(line, "\n")] = '\0';
      snprintf(path, len, "%s", line + 3);
      found = 1;
    }
  fclose(f);
  return found;
}

/* 1 when the space-separated list in file holds word. */
static int lists(const char *file, const char *word)
{
  char text[512], *tok, *save = NULL;
  FILE *f = fopen(file, "re");
  size_t n;

  if (f == NULL)
    return 0;
  n = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[n] = '\0';
  for (tok = strtok_r(text, " \n", &save); tok != NULL;
       tok = strtok_r(NULL, " \n", &save))
    if (strcmp(tok, word) == 0)
      return 1;
  return 0;
}

void linux_cgroup_describe(struct model_machine *m)
{
  char mount[512], path[1024], dir[1600], file[1700];
  int v1_holds;
  int memory, cpu;

  m->cgroup_v2_known = 1;
  m->cgroup_v2_delegated = 0;
  if (!find_mounts(mount, sizeof(mount), &v1_holds)) {
    snprintf(m->cgroup_v2_reason, sizeof(m->cgroup_v2_reason),
             "no cgroup v2 hierarchy is mounted (cgroup v1 only)");
    return;
  }
  if (!own_path(path, sizeof(path))) {
    snprintf(m->cgroup_v2_reason, sizeof(m->cgroup_v2_reason),
             "this process is in no cgroup v2 hierarchy");
    return;
  }
  snprintf(dir, sizeof(dir), "%s%s", mount, strcmp(path, "/") ? path : "");
  snprintf(file, sizeof(file), "%s/cgroup.controllers", dir);
  memory = lists(file, "memory");
  cpu = lists(file, "cpu");
  if (!memory || !cpu) {
    /* No path in the text: the evidence names no folder of the machine. */
    snprintf(m->cgroup_v2_reason, sizeof(m->cgroup_v2_reason),
             "the cgroup v2 hierarchy has no %s controller%s for this "
             "process%s",
             !memory && !cpu ? "memory and cpu"
             : !memory       ? "memory"
                             : "cpu",
             !memory && !cpu ? "s" : "",
             v1_holds ? " (a hybrid host: cgroup v1 holds them)" : "");
    return;
  }
  snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
  if (access(dir, W_OK) != 0 || access(file, W_OK) != 0) {
    snprintf(m->cgroup_v2_reason, sizeof(m->cgroup_v2_reason),
             "this process's cgroup v2 has the memory and cpu controllers "
             "but is not writable by its user (not delegated)");
    return;
  }
  m->cgroup_v2_delegated = 1;
  m->cgroup_v2_reason[0] = '\0';
}

#include "evidence/model/model.h"

#include <stdlib.h>

const char *model_status_name(enum model_status s)
{
  switch (s) {
  case MODEL_PASSED:
    return "passed";
  case MODEL_FAILED:
    return "failed";
  case MODEL_UNSUPPORTED:
    return "unsupported";
  case MODEL_UNAVAILABLE:
    return "unavailable";
  default:
    return "error";
  }
}

const char *model_check_name(enum model_check id)
{
  static const char *const names[MODEL_CHECK_COUNT] = {
      "server_ready", "client_exit", "server_exit", "client_result",
      "no_orphans",   "port_free",   "temp_clean",
  };
  return (unsigned)id < MODEL_CHECK_COUNT ? names[id] : "unknown";
}

void model_sample_release(struct model_sample *s)
{
  capture_release(&s->server.err);
  capture_release(&s->client.err);
}

void model_package_info_release(struct model_package_info *p)
{
  for (int i = 0; i < p->nentries; i++)
    free(p->entries[i].path);
  free(p->entries);
  p->entries = NULL;
  p->nentries = 0;
  p->file_count = 0;
  p->unpacked_bytes = 0;
}

void model_package_release(struct model_package *p)
{
  model_package_info_release(&p->package);
}

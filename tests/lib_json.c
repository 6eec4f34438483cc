#include "tests/lib_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_object *json_at(json_object *o, const char *dotted)
{
  char buf[512], *save = NULL;

  snprintf(buf, sizeof(buf), "%s", dotted);
  for (char *k = strtok_r(buf, ".", &save); k && o;
       k = strtok_r(NULL, ".", &save)) {
    if (json_object_is_type(o, json_type_array))
      o = json_object_array_get_idx(o, (size_t)atoi(k));
    else if (!json_object_object_get_ex(o, k, &o))
      return NULL;
  }
  return o;
}

const char *json_str_at(json_object *o, const char *dotted)
{
  json_object *v = json_at(o, dotted);
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : "";
}

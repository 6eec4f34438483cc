/* Reading test documents by dotted path ("lanes.c-c.samples.0.status"):
 * numeric parts index arrays. Shared by the test programs. */
#ifndef CROSSRUN_TESTS_LIB_JSON_H
#define CROSSRUN_TESTS_LIB_JSON_H

#include <json-c/json.h>

/* The member at dotted (at most 511 bytes) below o, or NULL (also for a
 * JSON null). Borrowed: owned by o. */
json_object *json_at(json_object *o, const char *dotted);

/* The string at dotted, or "" when absent or not a string. */
const char *json_str_at(json_object *o, const char *dotted);

#endif

/* A FILE * that collects what is written to it: see tests/lib_memfile.h. */
#include "tests/lib_memfile.h"

#include <stdlib.h>
#include <string.h>

#ifndef _WIN32

FILE *memfile_open(char **text, size_t *len)
{
  *text = NULL;
  *len = 0;
  return open_memstream(text, len);
}

int memfile_close(FILE *f)
{
  return fclose(f);
}

#else /* Windows: the C runtime has no open_memstream. */

#include <fcntl.h>
#include <io.h>
#include <windows.h>

/* The open memfiles: where each one's text goes on close. */
static struct {
  FILE *f;
  char **text;
  size_t *len;
} open_files[MEMFILE_MAX_OPEN];

/* A new file in the temporary folder, open for reading and writing, that
 * the system removes when its last handle closes (however the program
 * ends). NULL when it cannot be made. */
static FILE *temporary_file(void)
{
  WCHAR dir[MAX_PATH + 1], name[MAX_PATH + 1];
  HANDLE h;
  FILE *f;
  int fd;

  if (GetTempPathW(MAX_PATH + 1, dir) == 0 ||
      GetTempFileNameW(dir, L"crm", 0, name) == 0)
    return NULL;
  h = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_DELETE, NULL,
                  CREATE_ALWAYS,
                  FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    DeleteFileW(name);
    return NULL;
  }
  fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
  if (fd < 0) {
    CloseHandle(h);
    return NULL;
  }
  f = _fdopen(fd, "w+b");
  if (f == NULL)
    _close(fd);
  return f;
}

FILE *memfile_open(char **text, size_t *len)
{
  *text = NULL;
  *len = 0;
  for (int i = 0; i < MEMFILE_MAX_OPEN; i++) {
    if (open_files[i].f != NULL)
      continue;
    open_files[i].f = temporary_file();
    open_files[i].text = text;
    open_files[i].len = len;
    return open_files[i].f;
  }
  return NULL;
}

/* What f holds, NUL-terminated (the caller frees), its length in *len;
 * NULL when it cannot be read or passes MEMFILE_MAX_BYTES. */
static char *read_back(FILE *f, size_t *len)
{
  long size;
  char *text;

  if (fflush(f) != 0 || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
      (unsigned long)size > MEMFILE_MAX_BYTES || fseek(f, 0, SEEK_SET) != 0)
    return NULL;
  text = malloc((size_t)size + 1);
  if (text == NULL)
    return NULL;
  if (fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    return NULL;
  }
  text[size] = '\0';
  *len = (size_t)size;
  return text;
}

int memfile_close(FILE *f)
{
  for (int i = 0; i < MEMFILE_MAX_OPEN; i++) {
    if (open_files[i].f != f || f == NULL)
      continue;
    char *text = read_back(f, open_files[i].len);
    open_files[i].f = NULL;
    if (fclose(f) != 0 || text == NULL) {
      free(text);
      *open_files[i].len = 0;
      return EOF;
    }
    *open_files[i].text = text;
    return 0;
  }
  return fclose(f);
}

#endif

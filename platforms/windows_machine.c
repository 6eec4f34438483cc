/* platform_machine_describe: the architecture, Windows version, processor
 * and memory of the machine. Part of the Windows implementation of
 * platforms/platform.h. */
#include "platforms/windows_internal.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* Calls a kernel32 or ntdll function that older Windows lacks or that the
 * SDK does not declare; through void (*)(void) so that the cast from
 * FARPROC is not a function-type mismatch warning. */
typedef BOOL(WINAPI *is_wow64_process2_fn)(HANDLE, USHORT *, USHORT *);
typedef LONG(WINAPI *rtl_get_version_fn)(RTL_OSVERSIONINFOW *);
typedef const char *(CDECL *wine_get_version_fn)(void);

static void (*lookup(const wchar_t *module, const char *name))(void)
{
  HMODULE m = GetModuleHandleW(module);
  return m != NULL ? (void (*)(void))GetProcAddress(m, name) : NULL;
}

/* The machine's own architecture, also when this program runs emulated
 * (x64 on arm64), which GetNativeSystemInfo does not reveal. */
static const char *native_arch(void)
{
  is_wow64_process2_fn wow64 =
      (is_wow64_process2_fn)lookup(L"kernel32.dll", "IsWow64Process2");
  USHORT process_machine, native_machine;
  SYSTEM_INFO si;

  if (wow64 != NULL &&
      wow64(GetCurrentProcess(), &process_machine, &native_machine)) {
    switch (native_machine) {
    case IMAGE_FILE_MACHINE_AMD64:
      return "x86_64";
    case IMAGE_FILE_MACHINE_ARM64:
      return "arm64";
    case IMAGE_FILE_MACHINE_I386:
      return "x86";
    case IMAGE_FILE_MACHINE_ARMNT:
      return "arm";
    default:
      break;
    }
  }
  GetNativeSystemInfo(&si);
  switch (si.wProcessorArchitecture) {
  case PROCESSOR_ARCHITECTURE_AMD64:
    return "x86_64";
  case PROCESSOR_ARCHITECTURE_ARM64:
    return "arm64";
  case PROCESSOR_ARCHITECTURE_INTEL:
    return "x86";
  case PROCESSOR_ARCHITECTURE_ARM:
    return "arm";
  default:
    return "unknown";
  }
}

/* "major.minor.build.revision". RtlGetVersion, because GetVersionEx
 * reports 6.2 to programs without a compatibility manifest; the revision
 * (UBR) is only in the registry. */
static void kernel_version(char *out, size_t len)
{
  rtl_get_version_fn get =
      (rtl_get_version_fn)lookup(L"ntdll.dll", "RtlGetVersion");
  RTL_OSVERSIONINFOW vi;
  DWORD ubr = 0, size = sizeof(ubr);

  snprintf(out, len, "unknown");
  memset(&vi, 0, sizeof(vi));
  vi.dwOSVersionInfoSize = sizeof(vi);
  if (get == NULL || get(&vi) != 0)
    return;
  if (RegGetValueW(HKEY_LOCAL_MACHINE,
                   L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", L"UBR",
                   RRF_RT_REG_DWORD, NULL, &ubr, &size) == ERROR_SUCCESS)
    snprintf(out, len, "%lu.%lu.%lu.%lu", (unsigned long)vi.dwMajorVersion,
             (unsigned long)vi.dwMinorVersion, (unsigned long)vi.dwBuildNumber,
             (unsigned long)ubr);
  else
    snprintf(out, len, "%lu.%lu.%lu", (unsigned long)vi.dwMajorVersion,
             (unsigned long)vi.dwMinorVersion, (unsigned long)vi.dwBuildNumber);
}

/* The processor's name as Windows records it (the CPUID brand string on
 * x86, the vendor's name on arm64). */
static void cpu_model(char *out, size_t len)
{
  wchar_t name[128];
  DWORD size = sizeof(name);
  wchar_t *start, *end;

  snprintf(out, len, "unknown");
  if (RegGetValueW(HKEY_LOCAL_MACHINE,
                   L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                   L"ProcessorNameString", RRF_RT_REG_SZ, NULL, name,
                   &size) != ERROR_SUCCESS)
    return;
  name[sizeof(name) / sizeof(name[0]) - 1] = L'\0';
  for (start = name; *start == L' '; start++)
    ;
  end = start + wcslen(start);
  while (end > start && end[-1] == L' ')
    *--end = L'\0';
  if (*start != L'\0')
    win_wide_to_utf8(start, -1, out, len);
}

const char *win_wine_version(void)
{
  /* Wine's ntdll exports this; Windows' does not. */
  wine_get_version_fn get =
      (wine_get_version_fn)lookup(L"ntdll.dll", "wine_get_version");
  return get != NULL ? get() : NULL;
}

void platform_machine_describe(struct model_machine *m)
{
  const char *wine = win_wine_version();

  MEMORYSTATUSEX ms;
  DWORD cpus;

  memset(m, 0, sizeof(*m));
  snprintf(m->os, sizeof(m->os), "windows");
  snprintf(m->arch, sizeof(m->arch), "%s", native_arch());
  kernel_version(m->kernel, sizeof(m->kernel));
  cpu_model(m->cpu_model, sizeof(m->cpu_model));
  cpus = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
  m->logical_cpus = cpus > 0 ? (int)cpus : -1;
  memset(&ms, 0, sizeof(ms));
  ms.dwLength = sizeof(ms);
  m->memory_bytes = GlobalMemoryStatusEx(&ms) ? (int64_t)ms.ullTotalPhys : -1;
  /* Windows has no load average and no governor in that sense. */
  m->load_average_1m = -1;
  if (wine != NULL)
    snprintf(m->emulator, sizeof(m->emulator), "wine %s", wine);
}

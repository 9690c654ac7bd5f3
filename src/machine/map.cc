#include "machine/map.h"

#include "absl/strings/match.h"

namespace perftk::machine {
namespace {

// The kernel's MAP_HUGETLB mmap flag (uapi asm-generic/mman-common.h).
constexpr uint32_t kMapHugetlb = 0x40000;

bool IsAnonName(absl::string_view name) {
  return name == "//anon" || absl::StartsWith(name, "/dev/zero") ||
         absl::StartsWith(name, "/anon_hugepage");
}

bool IsNoFileName(absl::string_view name) {
  return absl::StartsWith(name, "[stack") || absl::StartsWith(name, "/SYSV") || name == "[heap]";
}

bool IsVdsoName(absl::string_view name) {
  return name == "[vdso]" || name == "[vdso32]" || name == "[vdsox32]";
}

}  // namespace

absl::string_view MapKindName(MapKind kind) {
  switch (kind) {
    case MapKind::kFile:
      return "file";
    case MapKind::kAnon:
      return "anon";
    case MapKind::kNoFile:
      return "nofile";
    case MapKind::kVdso:
      return "vdso";
    case MapKind::kKernel:
      return "kernel";
    case MapKind::kKernelExtra:
      return "kernel-extra";
    case MapKind::kModule:
      return "module";
    case MapKind::kKsymbol:
      return "ksymbol";
  }
  return "unknown";
}

MapKind UserMapKind(absl::string_view filename, uint32_t flags) {
  if (IsAnonName(filename) || (flags & kMapHugetlb) != 0) return MapKind::kAnon;
  if (IsVdsoName(filename)) return MapKind::kVdso;
  if (IsNoFileName(filename)) return MapKind::kNoFile;
  return MapKind::kFile;
}

}  // namespace perftk::machine

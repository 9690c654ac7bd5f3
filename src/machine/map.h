// A Map is one address range [start, end) of an address space and what it
// shows: a Dso at file offset `pgoff`, or memory with no file.
//
// Map is a plain value: lookups return copies, so a result stays valid after
// the Maps it came from changes. Its Dso pointer stays valid as long as the
// Machine that interned it (see dso.h).
//
// How an address becomes the address perf hands to the Dso's symbol lookup
// (perf's map__map_ip) depends on the kind:
//   - kernel text, anonymous and no-file memory: the address itself
//     (identity); for kKernel, `pgoff` is the runtime address of the
//     relocation symbol (`_text`), not a file offset;
//   - everything else: addr - start + pgoff.
#ifndef PERFTK_MACHINE_MAP_H_
#define PERFTK_MACHINE_MAP_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "machine/dso.h"

namespace perftk::machine {

enum class MapKind : uint8_t {
  kFile,         // a file mapping in user space
  kAnon,         // "//anon", "/dev/zero*", "/anon_hugepage*", MAP_HUGETLB
  kNoFile,       // "[stack*", "[heap]", "/SYSV*": named memory with no file
  kVdso,         // "[vdso]", "[vdso32]", "[vdsox32]"; pgoff is always 0
  kKernel,       // the kernel text, from "[kernel.kallsyms]_text" and alike
  kKernelExtra,  // other kernel-space MMAPs, e.g. x86 entry trampolines
  kModule,       // a kernel module: "/lib/modules/.../foo.ko" or "[foo]"
  kKsymbol,      // a KSYMBOL: BPF program, trampoline, out-of-line text
};

absl::string_view MapKindName(MapKind kind);

// The kind of a user-space mapping, from its filename and MMAP2 flags.
MapKind UserMapKind(absl::string_view filename, uint32_t flags);

struct Map {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive; start < end for every map inside a Maps
  uint64_t pgoff = 0;
  const Dso* dso = nullptr;
  uint32_t prot = 0;
  uint32_t flags = 0;
  MapKind kind = MapKind::kFile;

  uint64_t size() const { return end - start; }
  bool Contains(uint64_t addr) const { return start <= addr && addr < end; }
  bool IsIdentity() const {
    return kind == MapKind::kKernel || kind == MapKind::kAnon || kind == MapKind::kNoFile;
  }
  // The address perf looks up in the Dso for `addr` (perf's map__map_ip).
  uint64_t DsoAddress(uint64_t addr) const { return IsIdentity() ? addr : addr - start + pgoff; }
  // The inverse of DsoAddress (perf's map__unmap_ip).
  uint64_t AddressOf(uint64_t dso_address) const {
    return IsIdentity() ? dso_address : dso_address - pgoff + start;
  }
  // Whether a piece of this map cut off at its front keeps its pgoff moving
  // with the address. False only for the kernel text, whose pgoff is the
  // relocation symbol's address.
  bool PgoffTracksAddress() const { return kind != MapKind::kKernel; }

  friend bool operator==(const Map&, const Map&) = default;
};

}  // namespace perftk::machine

#endif  // PERFTK_MACHINE_MAP_H_

// A Dso is the object a map shows: an ELF file, the kernel, a module, a BPF
// program, or a name for memory with no file behind it ("//anon", "[stack]").
//
// Dsos are interned per Machine by DsoTable: one Dso per distinct identity, so
// two maps of the same object point at the same Dso and pointer equality is
// identity equality. A Dso never changes after it is interned and lives as
// long as its DsoTable, so `const Dso*` can be held and read from any thread
// without locks. The table grows with the number of distinct objects seen,
// never with the number of events.
#ifndef PERFTK_MACHINE_DSO_H_
#define PERFTK_MACHINE_DSO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "base/build_id.h"

namespace perftk::machine {

// Device and inode of a file mapping, as MMAP2 reports them (zeros if unknown).
struct FileId {
  uint32_t maj = 0;
  uint32_t min = 0;
  uint64_t ino = 0;
  uint64_t ino_generation = 0;

  friend bool operator==(const FileId&, const FileId&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const FileId& id) {
    return H::combine(std::move(h), id.maj, id.min, id.ino, id.ino_generation);
  }
};

struct Dso {
  std::string name;        // the MMAP filename, kernel mmap name or ksymbol name
  base::BuildId build_id;  // empty when the record carried none
  FileId file_id;
  bool kernel_space = false;
};

// Interns Dsos by (name, build id, file id, kernel space). Not thread-safe:
// the owner (Machine) serializes Intern calls; the returned Dsos themselves
// are immutable and safe to share.
class DsoTable {
 public:
  const Dso* Intern(absl::string_view name, const base::BuildId& build_id, const FileId& file_id,
                    bool kernel_space);
  size_t size() const { return dsos_.size(); }

 private:
  using Key = std::tuple<std::string, base::BuildId, FileId, bool>;
  absl::flat_hash_map<Key, std::unique_ptr<const Dso>> dsos_;
};

}  // namespace perftk::machine

#endif  // PERFTK_MACHINE_DSO_H_

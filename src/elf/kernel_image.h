// What a decoder needs from a kernel image: where the code of a runtime
// kernel address is in the file.
//
// Two kinds of file, as perf reads them:
//   - vmlinux (ET_EXEC or ET_DYN with symbols): PT_LOADs at link addresses.
//     A kernel moved by KASLR runs `slide` bytes away from them; the slide
//     is the runtime address of a relocation symbol (perf's kernel MMAP
//     names it, "[kernel.kallsyms]_text", with its address in pgoff) minus
//     its value in the file;
//   - kcore (ET_CORE: /proc/kcore, or the copy `perf record --kcore`
//     keeps): PT_LOADs at runtime addresses, kernel and modules alike, so
//     no slide.
#ifndef PERFTK_ELF_KERNEL_IMAGE_H_
#define PERFTK_ELF_KERNEL_IMAGE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "elf/elf_file.h"

namespace perftk::elf {

class KernelImage {
 public:
  // The loads of `file`; an error when it has none with file bytes.
  static absl::StatusOr<KernelImage> Of(const ElfFile& file);
  // The loads of the ELF core file open as `fd`, read by pread alone: a
  // kcore's size is the kernel's address space (terabytes), so libelf,
  // which maps or reads whole files, must not open it. 64-bit, native byte
  // order, as the kernel writes it.
  static absl::StatusOr<KernelImage> OfCore(int fd, const std::string& path);

  bool is_core() const { return is_core_; }
  // The vaddr of the first load (AutoFDO counts a binary's addresses from it).
  uint64_t first_load_vaddr() const { return loads_.empty() ? 0 : loads_.front().vaddr; }
  // The file offset of the byte at `address` (an address of the file's own
  // layout: runtime minus slide) and how many bytes of its load follow.
  std::optional<std::pair<uint64_t, uint64_t>> FileRange(uint64_t address) const;

 private:
  struct Load {
    uint64_t vaddr = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
  };
  std::vector<Load> loads_;
  bool is_core_ = false;
};

// st_value of the first .symtab symbol named `name` (any type), if any.
std::optional<uint64_t> SymbolValue(const ElfFile& file, absl::string_view name);

}  // namespace perftk::elf

#endif  // PERFTK_ELF_KERNEL_IMAGE_H_

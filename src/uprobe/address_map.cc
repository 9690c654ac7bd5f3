#include "uprobe/address_map.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace perftk::uprobe {
namespace {

const elf::Segment* ExecutableSegmentContaining(const elf::ElfFile& binary, uint64_t vaddr) {
  for (const elf::Segment& segment : binary.segments()) {
    if (segment.type == PT_LOAD && segment.executable() &&
        segment.ContainsFileBackedAddress(vaddr)) {
      return &segment;
    }
  }
  return nullptr;
}

absl::Status CrossCheck(const elf::ElfFile& binary, uint64_t vaddr, uint64_t offset,
                        const elf::Section& section) {
  if (!section.has_file_bytes() || !section.allocated() || vaddr < section.addr ||
      vaddr - section.addr >= section.size) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: address 0x%x is not inside section %s [0x%x, 0x%x) that its symbol names; "
        "refusing to guess the file offset",
        binary.path(), vaddr, section.name, section.addr, section.addr + section.size));
  }
  const uint64_t by_section = vaddr - section.addr + section.offset;
  if (by_section != offset) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: address 0x%x: program headers give file offset 0x%x but section %s gives 0x%x; "
        "the headers disagree, refusing to guess",
        binary.path(), vaddr, offset, section.name, by_section));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<uint64_t> CodeAddressToFileOffset(const elf::ElfFile& binary, uint64_t vaddr,
                                                 const elf::Section* section) {
  const elf::Segment* segment = ExecutableSegmentContaining(binary, vaddr);
  if (segment == nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: address 0x%x lies in no executable PT_LOAD segment (not code, or the program "
        "headers are wrong); a uprobe there would never fire",
        binary.path(), vaddr));
  }
  const uint64_t offset = vaddr - segment->vaddr + segment->offset;
  if (offset >= binary.file_size()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: address 0x%x maps to file offset 0x%x, past the end of the file (0x%x bytes)",
        binary.path(), vaddr, offset, binary.file_size()));
  }
  if (section == nullptr) section = binary.SectionContaining(vaddr);
  if (section == nullptr) {
    bool has_allocated_sections = false;
    for (const elf::Section& s : binary.sections()) has_allocated_sections |= s.allocated();
    if (!has_allocated_sections) return offset;  // no section headers to check against
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: address 0x%x (file offset 0x%x by the program headers) is in no section; "
        "refusing to guess",
        binary.path(), vaddr, offset));
  }
  if (absl::Status check = CrossCheck(binary, vaddr, offset, *section); !check.ok()) {
    return check;
  }
  return offset;
}

}  // namespace perftk::uprobe

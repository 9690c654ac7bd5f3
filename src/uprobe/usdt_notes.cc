#include "uprobe/usdt_notes.h"

#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "uprobe/address_map.h"

namespace perftk::uprobe {
namespace {

constexpr uint32_t kStapsdtNoteType = 3;
constexpr absl::string_view kStapsdtOwner("stapsdt\0", 8);
constexpr size_t kNoteHeaderSize = 12;

size_t AlignTo4(size_t n) { return (n + 3) & ~size_t{3}; }

// Unsigned integers of `width` bytes stored in the file's byte order.
class FileWords {
 public:
  explicit FileWords(bool big_endian) : big_endian_(big_endian) {}

  uint64_t Read(const char* p, size_t width) const {
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i) {
      const size_t at = big_endian_ ? i : width - 1 - i;
      value = (value << 8) | static_cast<unsigned char>(p[at]);
    }
    return value;
  }

 private:
  bool big_endian_;
};

absl::Status Malformed(const elf::ElfFile& file, uint64_t offset, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: offset 0x%x: malformed .note.stapsdt note: %s", file.path(), offset, what));
}

// Splits the descriptor's three strings after the addresses; returns false
// if one is missing its NUL or the name is empty.
bool SplitStrings(absl::string_view text, UsdtNote* note) {
  std::string* fields[] = {&note->provider, &note->name, &note->arguments};
  for (std::string* field : fields) {
    const size_t end = text.find('\0');
    if (end == absl::string_view::npos) return false;
    *field = std::string(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return !note->name.empty();
}

// The notes of one section; `bytes` are its contents as stored.
absl::Status ReadSectionNotes(const elf::ElfFile& file, const elf::Section& section,
                              absl::string_view bytes, std::vector<UsdtNote>* notes) {
  const FileWords words(file.big_endian());
  const size_t address_size = file.is_64bit() ? 8 : 4;
  size_t at = 0;
  while (at < bytes.size()) {
    const uint64_t note_offset = section.offset + at;
    if (bytes.size() - at < kNoteHeaderSize) {
      return Malformed(file, note_offset,
                       absl::StrFormat("%d bytes left in section %s, a note header needs %d",
                                       bytes.size() - at, section.name, kNoteHeaderSize));
    }
    const char* header = bytes.data() + at;
    const uint64_t name_size = words.Read(header, 4);
    const uint64_t desc_size = words.Read(header + 4, 4);
    const uint64_t type = words.Read(header + 8, 4);
    const size_t name_at = at + kNoteHeaderSize;
    const uint64_t room = bytes.size() - name_at;
    if (name_size > room || AlignTo4(name_size) + desc_size > room) {
      return Malformed(file, note_offset,
                       absl::StrFormat("owner size %d and descriptor size %d run past the end of "
                                       "section %s (%d bytes left)",
                                       name_size, desc_size, section.name, room));
    }
    const size_t desc_at = name_at + AlignTo4(name_size);
    at = desc_at + AlignTo4(desc_size);
    const absl::string_view owner = bytes.substr(name_at, name_size);
    if (owner != kStapsdtOwner || type != kStapsdtNoteType) continue;
    const absl::string_view desc = bytes.substr(desc_at, desc_size);
    if (desc.size() < 3 * address_size + 3) {
      return Malformed(file, note_offset,
                       absl::StrFormat("descriptor of %d bytes, at least %d needed for three "
                                       "addresses and three strings",
                                       desc.size(), 3 * address_size + 3));
    }
    UsdtNote note;
    note.file_offset = note_offset;
    note.location = words.Read(desc.data(), address_size);
    note.base = words.Read(desc.data() + address_size, address_size);
    note.semaphore = words.Read(desc.data() + 2 * address_size, address_size);
    if (!SplitStrings(desc.substr(3 * address_size), &note)) {
      return Malformed(file, note_offset,
                       "provider, name and arguments must be three NUL-terminated strings and "
                       "the name must not be empty");
    }
    notes->push_back(std::move(note));
  }
  return absl::OkStatus();
}

const elf::Segment* LoadSegmentContaining(const elf::ElfFile& file, uint64_t address) {
  for (const elf::Segment& segment : file.segments()) {
    if (segment.type == PT_LOAD && segment.ContainsFileBackedAddress(address)) return &segment;
  }
  return nullptr;
}

absl::StatusOr<uint64_t> SemaphoreOffset(const elf::ElfFile& file, const UsdtNote& note,
                                         uint64_t address) {
  const elf::Segment* segment = LoadSegmentContaining(file, address);
  if (segment == nullptr || segment->executable()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: probe %s:%s (note at offset 0x%x): semaphore address 0x%x lies in no file-backed, "
        "writable PT_LOAD segment; the kernel could not count itself in it",
        file.path(), note.provider, note.name, note.file_offset, address));
  }
  return address - segment->vaddr + segment->offset;
}

}  // namespace

absl::StatusOr<std::vector<UsdtNote>> ReadUsdtNotes(const elf::ElfFile& file) {
  std::vector<UsdtNote> notes;
  for (const elf::Section& section : file.sections()) {
    if (section.type != SHT_NOTE || section.name != ".note.stapsdt") continue;
    absl::StatusOr<absl::string_view> bytes = file.SectionBytes(section);
    if (!bytes.ok()) return bytes.status();
    if (absl::Status s = ReadSectionNotes(file, section, *bytes, &notes); !s.ok()) return s;
  }
  return notes;
}

absl::StatusOr<std::vector<UsdtProbe>> PlaceUsdtNotes(const elf::ElfFile& file,
                                                      std::vector<UsdtNote> notes) {
  const elf::Section* base_section = file.FindSection(".stapsdt.base");
  std::vector<UsdtProbe> probes;
  probes.reserve(notes.size());
  for (UsdtNote& note : notes) {
    UsdtProbe probe;
    // Unsigned wrap-around makes a lower actual base subtract.
    const uint64_t shift =
        base_section != nullptr && note.base != 0 ? base_section->addr - note.base : 0;
    probe.address = note.location + shift;
    absl::StatusOr<uint64_t> offset = CodeAddressToFileOffset(file, probe.address, nullptr);
    if (!offset.ok()) {
      return absl::FailedPreconditionError(
          absl::StrFormat("probe %s:%s (note at offset 0x%x): %s", note.provider, note.name,
                          note.file_offset, offset.status().message()));
    }
    probe.offset = *offset;
    if (note.semaphore != 0) {
      probe.semaphore_address = note.semaphore + shift;
      absl::StatusOr<uint64_t> semaphore = SemaphoreOffset(file, note, probe.semaphore_address);
      if (!semaphore.ok()) return semaphore.status();
      probe.semaphore_offset = *semaphore;
    }
    probe.note = std::move(note);
    probes.push_back(std::move(probe));
  }
  return probes;
}

}  // namespace perftk::uprobe

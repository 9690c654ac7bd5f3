#include "elf/debug_files.h"

#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/input_file.h"
#include "elf/build_id.h"
#include "elf/build_id_cache.h"

namespace perftk::elf {
namespace {

constexpr uint64_t kMaxMiniDebugInfoSize = uint64_t{1} << 30;

// Looks without opening: a FIFO among the candidates must not block.
bool FileExists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

std::string Directory(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::StatusOr<uint32_t> FileCrc(const std::string& path) {
  absl::StatusOr<int> fd = base::OpenInputFile(path, "debug file");
  if (!fd.ok()) return fd.status();
  std::vector<char> buffer(1 << 16);
  uint32_t crc = 0;
  while (true) {
    ssize_t n = read(*fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    crc = DebuglinkCrc(crc, absl::string_view(buffer.data(), static_cast<size_t>(n)));
  }
  close(*fd);
  return crc;
}

// Opens `candidate` if it is a usable debug file for `binary` (null if not);
// something there that is not a regular file (a FIFO, a device) is an error,
// never a hang.
absl::StatusOr<std::unique_ptr<ElfFile>> OpenIfMatching(
    const ElfFile& binary, const std::string& candidate,
    const std::optional<base::BuildId>& build_id) {
  struct stat st;
  if (candidate == binary.path() || stat(candidate.c_str(), &st) != 0) return nullptr;
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(candidate, ": the debug file is ",
                                                   base::DescribeFileType(st.st_mode),
                                                   ", not a regular file"));
  }
  absl::StatusOr<std::unique_ptr<ElfFile>> file = ElfFile::Open(candidate);
  if (!file.ok()) return nullptr;
  if (build_id.has_value() && !HasBuildId(**file, *build_id)) {
    return nullptr;
  }
  if ((*file)->machine() != binary.machine()) return nullptr;
  return *std::move(file);
}

struct Debuglink {
  std::string name;
  uint32_t crc = 0;
};

std::optional<Debuglink> ReadDebuglink(const ElfFile& binary) {
  const Section* section = binary.FindSection(".gnu_debuglink");
  if (section == nullptr) return std::nullopt;
  absl::StatusOr<absl::string_view> bytes = binary.SectionBytes(*section);
  if (!bytes.ok()) return std::nullopt;
  const size_t end = bytes->find('\0');
  if (end == absl::string_view::npos || end == 0) return std::nullopt;
  const size_t crc_at = (end + 4) & ~size_t{3};
  if (crc_at + 4 > bytes->size()) return std::nullopt;
  uint8_t b[4];
  std::memcpy(b, bytes->data() + crc_at, 4);
  const uint32_t crc =
      binary.big_endian()
          ? (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3]
          : (uint32_t{b[3]} << 24) | (uint32_t{b[2]} << 16) | (uint32_t{b[1]} << 8) | b[0];
  return Debuglink{std::string(bytes->substr(0, end)), crc};
}

}  // namespace

uint32_t DebuglinkCrc(uint32_t crc, absl::string_view bytes) {
  // zlib's crc32 takes at most 4 GiB a call (uInt).
  constexpr size_t kMostPerCall = size_t{1} << 30;
  while (!bytes.empty()) {
    const size_t n = std::min(bytes.size(), kMostPerCall);
    crc = static_cast<uint32_t>(
        crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(n)));
    bytes.remove_prefix(n);
  }
  return crc;
}

absl::StatusOr<std::unique_ptr<ElfFile>> FindDebugFile(const ElfFile& binary,
                                                       const std::string& debug_root) {
  // The path names the whole note, as the tools that make debug files do.
  const std::optional<base::BuildId> build_id = binary.BuildId();
  if (build_id.has_value() && build_id->size() > 1) {
    const std::string candidate = BuildIdDebugPath(debug_root, build_id->ToHex());
    absl::StatusOr<std::unique_ptr<ElfFile>> file = OpenIfMatching(binary, candidate, build_id);
    if (!file.ok() || *file != nullptr) return file;
  }
  const std::optional<Debuglink> link = ReadDebuglink(binary);
  if (!link.has_value()) return nullptr;
  const std::string dir = Directory(binary.path());
  for (const std::string& candidate :
       {absl::StrCat(dir, "/", link->name), absl::StrCat(dir, "/.debug/", link->name),
        absl::StrCat(debug_root, dir, "/", link->name)}) {
    if (candidate == binary.path() || !FileExists(candidate)) continue;
    absl::StatusOr<uint32_t> crc = FileCrc(candidate);
    if (!crc.ok() && absl::IsInvalidArgument(crc.status())) return crc.status();  // not a file
    if (!crc.ok() || *crc != link->crc) continue;
    absl::StatusOr<std::unique_ptr<ElfFile>> file = OpenIfMatching(binary, candidate, build_id);
    if (!file.ok() || *file != nullptr) return file;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<ElfFile>> OpenMiniDebugInfo(const ElfFile& binary) {
  const Section* section = binary.FindSection(".gnu_debugdata");
  if (section == nullptr) return nullptr;
  absl::StatusOr<absl::string_view> compressed = binary.SectionBytes(*section);
  if (!compressed.ok()) return compressed.status();

  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, 0) != LZMA_OK) {
    return absl::InternalError("liblzma: cannot start an xz decoder");
  }
  std::string output;
  stream.next_in = reinterpret_cast<const uint8_t*>(compressed->data());
  stream.avail_in = compressed->size();
  lzma_ret result = LZMA_OK;
  while (result == LZMA_OK) {
    if (output.size() >= kMaxMiniDebugInfoSize) break;
    const size_t used = output.size();
    output.resize(used + (size_t{1} << 16) + used);
    stream.next_out = reinterpret_cast<uint8_t*>(output.data() + used);
    stream.avail_out = output.size() - used;
    result = lzma_code(&stream, LZMA_FINISH);
    output.resize(output.size() - stream.avail_out);
  }
  lzma_end(&stream);
  if (result != LZMA_STREAM_END) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: section .gnu_debugdata at offset 0x%x: not a valid xz stream (liblzma error %d)",
        binary.path(), section->offset, static_cast<int>(result)));
  }
  return ElfFile::FromMemory(absl::StrCat(binary.path(), "[.gnu_debugdata]"), std::move(output));
}

}  // namespace perftk::elf

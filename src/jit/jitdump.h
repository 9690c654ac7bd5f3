// Reads a jitdump file (jit-<pid>.dump), the log a JIT runtime writes of the
// code it generates: a header, then CODE_LOAD, CODE_MOVE, CODE_DEBUG_INFO,
// CODE_CLOSE and CODE_UNWINDING_INFO records (format: perf's
// jitdump-specification.txt, version 1).
//
//   auto reader = JitDumpReader::Open("jit-123.dump");
//   while (true) {
//     absl::StatusOr<std::optional<JitRecord>> record = (*reader)->Next();
//     if (!record.ok()) return record.status();  // names file, offset, what
//     if (!*record) break;
//     ...
//   }
//
// Both byte orders are read; values are handed out native. The file is read
// up to the size it had at Open (a runtime may still be appending); a last
// record cut short by that is dropped with a warning, not an error. Every
// size inside a record is checked against the record, so a bad size is an
// error that names the file, the record's offset and the field. Unknown
// record ids are skipped and reported in one warning. Memory is bounded by
// the largest record, not the file.
#ifndef PERFTK_JIT_JITDUMP_H_
#define PERFTK_JIT_JITDUMP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/bytes.h"

namespace perftk::jit {

inline constexpr uint32_t kJitDumpMagic = 0x4A695444;  // "JiTD" in the writer's order
inline constexpr uint32_t kJitDumpVersion = 1;
inline constexpr size_t kJitHeaderSize = 40;
inline constexpr size_t kJitRecordPrefixSize = 16;
// Header flag: timestamps are the CPU's cycle counter, to be converted with
// the recording's TIME_CONV record.
inline constexpr uint64_t kJitFlagArchTimestamp = 1;

enum JitRecordId : uint32_t {
  kJitCodeLoad = 0,
  kJitCodeMove = 1,
  kJitCodeDebugInfo = 2,
  kJitCodeClose = 3,
  kJitCodeUnwindingInfo = 4,
};

struct JitDumpHeader {
  uint32_t version = 0;
  uint32_t total_size = 0;
  uint32_t elf_mach = 0;  // EM_* of the generated code
  uint32_t pid = 0;
  uint64_t timestamp = 0;
  uint64_t flags = 0;
  bool cross_endian = false;  // written in the other byte order

  bool arch_timestamp() const { return flags & kJitFlagArchTimestamp; }
};

// Views into the reader's buffer: valid until the next call to Next.
struct CodeLoad {
  uint32_t pid = 0, tid = 0;
  uint64_t vma = 0, code_addr = 0, code_size = 0, code_index = 0;
  absl::string_view name;
  base::Bytes code;
};

struct CodeMove {
  uint32_t pid = 0, tid = 0;
  uint64_t vma = 0, old_code_addr = 0, new_code_addr = 0, code_size = 0, code_index = 0;
};

struct DebugEntry {
  uint64_t addr = 0;  // absolute address in the code
  uint32_t line = 0;
  uint32_t discrim = 0;  // V8 stores the column here
  std::string file;
};

// Line information for the CODE_LOAD that follows it. Owns its data.
struct DebugInfo {
  uint64_t code_addr = 0;
  std::vector<DebugEntry> entries;
};

// Unwinding tables for the CODE_LOAD that follows: `data` holds .eh_frame
// then .eh_frame_hdr (the last eh_frame_hdr_size bytes). Owns its data.
struct UnwindingInfo {
  uint64_t eh_frame_hdr_size = 0;
  uint64_t mapped_size = 0;  // bytes of it mapped after the code (0: none)
  std::vector<std::byte> data;

  base::Bytes eh_frame() const { return base::Bytes(data).first(data.size() - eh_frame_hdr_size); }
  base::Bytes eh_frame_hdr() const { return base::Bytes(data).last(eh_frame_hdr_size); }
};

struct CodeClose {};

struct JitRecord {
  uint32_t id = 0;
  uint64_t timestamp = 0;
  uint64_t offset = 0;  // in the file
  std::variant<CodeLoad, CodeMove, DebugInfo, CodeClose, UnwindingInfo> body;
};

// The name of a record id, e.g. "CODE_LOAD"; "UNKNOWN(n)" for others.
std::string JitRecordName(uint32_t id);

class JitDumpReader {
 public:
  static absl::StatusOr<std::unique_ptr<JitDumpReader>> Open(const std::string& path);
  ~JitDumpReader();

  const JitDumpHeader& header() const { return header_; }
  const std::string& path() const { return path_; }
  // Steps over things that were wrong but harmless, one line each.
  const std::vector<std::string>& warnings() const { return warnings_; }

  absl::StatusOr<std::optional<JitRecord>> Next();

 private:
  JitDumpReader(std::string path, int fd, uint64_t size);

  absl::Status ReadHeader();
  // The n bytes at `offset` (inside the file), valid until the next call.
  absl::StatusOr<base::Bytes> Read(uint64_t offset, uint64_t n);
  absl::StatusOr<JitRecord> Parse(uint32_t id, uint64_t timestamp, base::Bytes record);
  absl::StatusOr<CodeLoad> ParseCodeLoad(base::Bytes record);
  absl::StatusOr<CodeMove> ParseCodeMove(base::Bytes record);
  absl::StatusOr<DebugInfo> ParseDebugInfo(base::Bytes record);
  absl::StatusOr<UnwindingInfo> ParseUnwindingInfo(base::Bytes record);
  void FinishWarnings();

  template <typename T>
  T Get(const std::byte* p) const {
    T v = base::Load<T>(p);
    return header_.cross_endian ? base::ByteSwap(v) : v;
  }
  absl::Status Error(uint64_t offset, absl::string_view what) const;
  // An error naming the record type unless `record` has at least `needed` bytes.
  absl::Status CheckSize(absl::string_view type, base::Bytes record, size_t needed) const;

  std::string path_;
  int fd_;
  uint64_t size_;
  JitDumpHeader header_;
  std::vector<std::string> warnings_;
  std::vector<std::byte> buffer_;
  uint64_t buffer_offset_ = 0;  // file offset of buffer_[0]
  uint64_t next_offset_ = 0;
  uint64_t current_offset_ = 0;  // of the record being parsed
  uint64_t unknown_records_ = 0;
  uint32_t first_unknown_id_ = 0;
  uint64_t first_unknown_offset_ = 0;
  bool done_ = false;
};

}  // namespace perftk::jit

#endif  // PERFTK_JIT_JITDUMP_H_

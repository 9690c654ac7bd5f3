#include "jit/jitdump.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/input_file.h"

namespace perftk::jit {
namespace {

constexpr uint64_t kCodeLoadFixedSize = kJitRecordPrefixSize + 8 + 4 * 8;
constexpr uint64_t kCodeMoveFixedSize = kJitRecordPrefixSize + 8 + 5 * 8;
constexpr uint64_t kDebugInfoFixedSize = kJitRecordPrefixSize + 2 * 8;
constexpr uint64_t kDebugEntryMinSize = 8 + 4 + 4 + 1;
constexpr uint64_t kUnwindingFixedSize = kJitRecordPrefixSize + 3 * 8;
constexpr size_t kMinBufferSize = 1 << 20;

// The length of the NUL-terminated string at the start of `bytes`, or nullopt
// if no NUL is there.
std::optional<size_t> StringLength(base::Bytes bytes) {
  const void* nul = std::memchr(bytes.data(), 0, bytes.size());
  if (nul == nullptr) return std::nullopt;
  return static_cast<size_t>(static_cast<const std::byte*>(nul) - bytes.data());
}

absl::string_view AsStringView(base::Bytes bytes, size_t length) {
  return absl::string_view(reinterpret_cast<const char*>(bytes.data()), length);
}

}  // namespace

std::string JitRecordName(uint32_t id) {
  switch (id) {
    case kJitCodeLoad:
      return "CODE_LOAD";
    case kJitCodeMove:
      return "CODE_MOVE";
    case kJitCodeDebugInfo:
      return "CODE_DEBUG_INFO";
    case kJitCodeClose:
      return "CODE_CLOSE";
    case kJitCodeUnwindingInfo:
      return "CODE_UNWINDING_INFO";
  }
  return absl::StrCat("UNKNOWN(", id, ")");
}

JitDumpReader::JitDumpReader(std::string path, int fd, uint64_t size)
    : path_(std::move(path)), fd_(fd), size_(size) {}

JitDumpReader::~JitDumpReader() { close(fd_); }

absl::StatusOr<std::unique_ptr<JitDumpReader>> JitDumpReader::Open(const std::string& path) {
  struct stat st;
  absl::StatusOr<int> fd = base::OpenInputFile(path, "jitdump", base::InputKind::kRegularFile, &st);
  if (!fd.ok()) return fd.status();
  std::unique_ptr<JitDumpReader> reader(
      new JitDumpReader(path, *fd, static_cast<uint64_t>(st.st_size)));
  if (absl::Status s = reader->ReadHeader(); !s.ok()) return s;
  return reader;
}

absl::Status JitDumpReader::Error(uint64_t offset, absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrFormat("%s: offset %#x: %s", path_, offset, what));
}

absl::StatusOr<base::Bytes> JitDumpReader::Read(uint64_t offset, uint64_t n) {
  if (offset > size_ || n > size_ - offset) {
    return Error(
        offset, absl::StrCat("read of ", n, " bytes past the end of the file (", size_, " bytes)"));
  }
  uint64_t buffered_end = buffer_offset_ + buffer_.size();
  if (offset >= buffer_offset_ && offset + n <= buffered_end) {
    return base::Bytes(buffer_).subspan(offset - buffer_offset_, n);
  }
  // Refill from `offset`, at least n bytes and at most what the file holds.
  uint64_t want = std::min<uint64_t>(std::max<uint64_t>(n, kMinBufferSize), size_ - offset);
  buffer_.resize(want);
  buffer_offset_ = offset;
  size_t got = 0;
  while (got < want) {
    ssize_t r = pread(fd_, buffer_.data() + got, want - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Error(offset + got, absl::StrCat("read failed: ", std::strerror(errno)));
    if (r == 0) break;  // the file shrank since Open
    got += static_cast<size_t>(r);
  }
  buffer_.resize(got);
  if (got < n) return Error(offset, "the file shrank while it was being read");
  return base::Bytes(buffer_).first(n);
}

absl::Status JitDumpReader::ReadHeader() {
  if (size_ < kJitHeaderSize) {
    return Error(0, absl::StrCat("too short for a jitdump header (", size_, " bytes, ",
                                 kJitHeaderSize, " needed)"));
  }
  absl::StatusOr<base::Bytes> bytes = Read(0, kJitHeaderSize);
  if (!bytes.ok()) return bytes.status();
  const std::byte* p = bytes->data();
  uint32_t magic = base::Load<uint32_t>(p);
  if (magic == base::ByteSwap(kJitDumpMagic)) {
    header_.cross_endian = true;
  } else if (magic != kJitDumpMagic) {
    return Error(0, absl::StrCat("not a jitdump (magic 0x", absl::Hex(magic), ", expected 0x",
                                 absl::Hex(kJitDumpMagic), " \"JiTD\")"));
  }
  header_.version = Get<uint32_t>(p + 4);
  header_.total_size = Get<uint32_t>(p + 8);
  header_.elf_mach = Get<uint32_t>(p + 12);
  header_.pid = Get<uint32_t>(p + 20);
  header_.timestamp = Get<uint64_t>(p + 24);
  header_.flags = Get<uint64_t>(p + 32);
  if (header_.version == 0 || header_.version > kJitDumpVersion) {
    return Error(4, absl::StrCat("jitdump version ", header_.version, " is not supported (version ",
                                 kJitDumpVersion, " is)"));
  }
  if (header_.total_size < kJitHeaderSize || header_.total_size > size_) {
    return Error(8, absl::StrCat("header size ", header_.total_size, " is not between ",
                                 kJitHeaderSize, " and the file size ", size_));
  }
  if (header_.flags & ~kJitFlagArchTimestamp) {
    return Error(32, absl::StrCat("unknown header flags 0x", absl::Hex(header_.flags)));
  }
  next_offset_ = header_.total_size;
  return absl::OkStatus();
}

void JitDumpReader::FinishWarnings() {
  if (unknown_records_ == 0) return;
  warnings_.push_back(absl::StrCat(path_, ": skipped ", unknown_records_,
                                   " record(s) of unknown type (first: id ", first_unknown_id_,
                                   absl::StrFormat(" at offset %#x)", first_unknown_offset_)));
  unknown_records_ = 0;
}

absl::StatusOr<std::optional<JitRecord>> JitDumpReader::Next() {
  while (!done_) {
    uint64_t offset = next_offset_;
    if (offset == size_) break;
    if (size_ - offset < kJitRecordPrefixSize) {
      warnings_.push_back(absl::StrCat(path_, absl::StrFormat(": offset %#x", offset), ": ignored ",
                                       size_ - offset, " trailing bytes (a record cut short)"));
      break;
    }
    absl::StatusOr<base::Bytes> prefix = Read(offset, kJitRecordPrefixSize);
    if (!prefix.ok()) return prefix.status();
    uint32_t id = Get<uint32_t>(prefix->data());
    uint32_t total = Get<uint32_t>(prefix->data() + 4);
    uint64_t timestamp = Get<uint64_t>(prefix->data() + 8);
    if (total < kJitRecordPrefixSize) {
      return Error(offset, absl::StrCat(JitRecordName(id), " record: size ", total,
                                        " is smaller than the record prefix"));
    }
    if (total > size_ - offset) {
      warnings_.push_back(absl::StrCat(
          path_, absl::StrFormat(": offset %#x: ", offset), JitRecordName(id), " record of ", total,
          " bytes is cut short by the end of "
          "the file (",
          size_ - offset, " bytes left); the runtime was still writing it"));
      break;
    }
    next_offset_ = offset + total;
    if (id > kJitCodeUnwindingInfo) {
      if (unknown_records_++ == 0) {
        first_unknown_id_ = id;
        first_unknown_offset_ = offset;
      }
      continue;
    }
    absl::StatusOr<base::Bytes> record = Read(offset, total);
    if (!record.ok()) return record.status();
    current_offset_ = offset;
    absl::StatusOr<JitRecord> parsed = Parse(id, timestamp, *record);
    if (!parsed.ok()) return parsed.status();
    return std::optional<JitRecord>(std::move(*parsed));
  }
  done_ = true;
  FinishWarnings();
  return std::optional<JitRecord>();
}

absl::StatusOr<JitRecord> JitDumpReader::Parse(uint32_t id, uint64_t timestamp,
                                               base::Bytes record) {
  JitRecord out;
  out.id = id;
  out.timestamp = timestamp;
  out.offset = current_offset_;
  switch (id) {
    case kJitCodeLoad: {
      absl::StatusOr<CodeLoad> load = ParseCodeLoad(record);
      if (!load.ok()) return load.status();
      out.body = *load;
      break;
    }
    case kJitCodeMove: {
      absl::StatusOr<CodeMove> move = ParseCodeMove(record);
      if (!move.ok()) return move.status();
      out.body = *move;
      break;
    }
    case kJitCodeDebugInfo: {
      absl::StatusOr<DebugInfo> debug = ParseDebugInfo(record);
      if (!debug.ok()) return debug.status();
      out.body = std::move(*debug);
      break;
    }
    case kJitCodeClose:
      out.body = CodeClose{};
      break;
    case kJitCodeUnwindingInfo: {
      absl::StatusOr<UnwindingInfo> unwinding = ParseUnwindingInfo(record);
      if (!unwinding.ok()) return unwinding.status();
      out.body = std::move(*unwinding);
      break;
    }
  }
  return out;
}

absl::Status JitDumpReader::CheckSize(absl::string_view type, base::Bytes record,
                                      size_t needed) const {
  if (record.size() >= needed) return absl::OkStatus();
  return Error(current_offset_, absl::StrCat(type, " record: size ", record.size(),
                                             " is too small (", needed, " needed)"));
}

absl::StatusOr<CodeLoad> JitDumpReader::ParseCodeLoad(base::Bytes record) {
  // The name needs at least its NUL.
  if (absl::Status s = CheckSize("CODE_LOAD", record, kCodeLoadFixedSize + 1); !s.ok()) return s;
  const std::byte* p = record.data() + kJitRecordPrefixSize;
  CodeLoad load;
  load.pid = Get<uint32_t>(p);
  load.tid = Get<uint32_t>(p + 4);
  load.vma = Get<uint64_t>(p + 8);
  load.code_addr = Get<uint64_t>(p + 16);
  load.code_size = Get<uint64_t>(p + 24);
  load.code_index = Get<uint64_t>(p + 32);
  uint64_t room = record.size() - kCodeLoadFixedSize;
  if (load.code_size >= room) {
    return Error(current_offset_,
                 absl::StrCat("CODE_LOAD record: code_size ", load.code_size,
                              " does not fit in the record (", room - 1,
                              " bytes left after the fixed fields and the name's NUL)"));
  }
  base::Bytes name_area = record.subspan(kCodeLoadFixedSize, room - load.code_size);
  std::optional<size_t> name_length = StringLength(name_area);
  if (!name_length) {
    return Error(current_offset_,
                 "CODE_LOAD record: the function name is not NUL-terminated "
                 "before the code");
  }
  load.name = AsStringView(name_area, *name_length);
  load.code = record.last(load.code_size);
  return load;
}

absl::StatusOr<CodeMove> JitDumpReader::ParseCodeMove(base::Bytes record) {
  if (absl::Status s = CheckSize("CODE_MOVE", record, kCodeMoveFixedSize); !s.ok()) return s;
  const std::byte* p = record.data() + kJitRecordPrefixSize;
  CodeMove move;
  move.pid = Get<uint32_t>(p);
  move.tid = Get<uint32_t>(p + 4);
  move.vma = Get<uint64_t>(p + 8);
  move.old_code_addr = Get<uint64_t>(p + 16);
  move.new_code_addr = Get<uint64_t>(p + 24);
  move.code_size = Get<uint64_t>(p + 32);
  move.code_index = Get<uint64_t>(p + 40);
  return move;
}

absl::StatusOr<DebugInfo> JitDumpReader::ParseDebugInfo(base::Bytes record) {
  if (absl::Status s = CheckSize("CODE_DEBUG_INFO", record, kDebugInfoFixedSize); !s.ok()) {
    return s;
  }
  const std::byte* p = record.data() + kJitRecordPrefixSize;
  DebugInfo debug;
  debug.code_addr = Get<uint64_t>(p);
  uint64_t nr_entry = Get<uint64_t>(p + 8);
  uint64_t room = record.size() - kDebugInfoFixedSize;
  if (nr_entry > room / kDebugEntryMinSize) {
    return Error(current_offset_,
                 absl::StrCat("CODE_DEBUG_INFO record: nr_entry ", nr_entry,
                              " entries cannot fit in the record's ", room, " bytes of entries"));
  }
  debug.entries.reserve(nr_entry);
  size_t pos = kDebugInfoFixedSize;
  for (uint64_t i = 0; i < nr_entry; ++i) {
    if (record.size() - pos < kDebugEntryMinSize) {
      return Error(current_offset_ + pos,
                   absl::StrCat("CODE_DEBUG_INFO record: entry ", i, " of ", nr_entry,
                                " runs past the end of the record"));
    }
    DebugEntry entry;
    entry.addr = Get<uint64_t>(record.data() + pos);
    entry.line = Get<uint32_t>(record.data() + pos + 8);
    entry.discrim = Get<uint32_t>(record.data() + pos + 12);
    pos += 16;
    std::optional<size_t> length = StringLength(record.subspan(pos));
    if (!length) {
      return Error(current_offset_ + pos,
                   absl::StrCat("CODE_DEBUG_INFO record: the file name of entry ", i, " of ",
                                nr_entry, " is not NUL-terminated in the record"));
    }
    entry.file.assign(reinterpret_cast<const char*>(record.data() + pos), *length);
    pos += *length + 1;
    debug.entries.push_back(std::move(entry));
  }
  return debug;
}

absl::StatusOr<UnwindingInfo> JitDumpReader::ParseUnwindingInfo(base::Bytes record) {
  if (absl::Status s = CheckSize("CODE_UNWINDING_INFO", record, kUnwindingFixedSize); !s.ok()) {
    return s;
  }
  const std::byte* p = record.data() + kJitRecordPrefixSize;
  uint64_t unwinding_size = Get<uint64_t>(p);
  UnwindingInfo info;
  info.eh_frame_hdr_size = Get<uint64_t>(p + 8);
  info.mapped_size = Get<uint64_t>(p + 16);
  uint64_t room = record.size() - kUnwindingFixedSize;
  if (unwinding_size > room) {
    return Error(current_offset_,
                 absl::StrCat("CODE_UNWINDING_INFO record: unwinding_size ", unwinding_size,
                              " does not fit in the record's ", room, " bytes of data"));
  }
  if (info.eh_frame_hdr_size > unwinding_size) {
    return Error(current_offset_, absl::StrCat("CODE_UNWINDING_INFO record: eh_frame_hdr_size ",
                                               info.eh_frame_hdr_size,
                                               " is larger than unwinding_size ", unwinding_size));
  }
  base::Bytes data = record.subspan(kUnwindingFixedSize, unwinding_size);
  info.data.assign(data.begin(), data.end());
  return info;
}

}  // namespace perftk::jit

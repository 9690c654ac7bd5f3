#include "jit/jit_tool.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "base/file_roles.h"
#include "jit/buildid_cache.h"
#include "perf/features.h"
#include "perf/record_encoders.h"
#include "perftk/perf_abi.h"

namespace perftk::jit {
namespace {

constexpr int32_t kClockMonotonic = 1;

absl::string_view Basename(absl::string_view path) {
  size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

std::string Dirname(absl::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == absl::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return absl::StrCat(cwd, "/", path);
}

// One MMAP2 to inject, before the file it points at is known to exist.
struct PlannedMmap {
  uint64_t time;
  uint32_t pid, tid;
  uint64_t start, len;
  uint64_t code_index;
};

}  // namespace

std::optional<uint32_t> JitDumpPidOf(absl::string_view filename) {
  absl::string_view base = Basename(filename);
  if (!absl::ConsumePrefix(&base, "jit-") || !absl::ConsumeSuffix(&base, ".dump")) {
    return std::nullopt;
  }
  if (base.empty()) return std::nullopt;
  for (char c : base) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint32_t pid;
  if (!absl::SimpleAtoi(base, &pid)) return std::nullopt;
  return pid;
}

bool IsAnonymousMapping(absl::string_view filename) {
  return absl::StartsWith(filename, "//anon") || absl::StartsWith(filename, "[anon:") ||
         absl::StartsWith(filename, "/memfd:");
}

std::vector<std::string> DumpCandidates(absl::string_view filename, uint32_t pid) {
  std::vector<std::string> candidates;
  if (pid != 0 && absl::StartsWith(filename, "/")) {
    candidates.push_back(absl::StrCat("/proc/", pid, "/root", filename));
  }
  candidates.emplace_back(filename);
  return candidates;
}

absl::StatusOr<TimeConversion> TimeConversion::From(const Record& record) {
  absl::StatusOr<TimeConvRecord> view = TimeConvRecord::From(record);
  if (!view.ok()) return view.status();
  TimeConversion tc;
  tc.time_shift = view->time_shift();
  tc.time_mult = view->time_mult();
  tc.time_zero = view->time_zero();
  tc.time_cycles = view->time_cycles();
  tc.time_mask = view->time_mask();
  tc.cap_user_time_short = view->cap_user_time_short();
  if (tc.time_shift >= 64) {
    return absl::InvalidArgumentError(absl::StrCat("offset ", record.file_offset(),
                                                   ": TIME_CONV time_shift ", tc.time_shift,
                                                   " is not below 64"));
  }
  return tc;
}

uint64_t TimeConversion::ToPerfTime(uint64_t cycles) const {
  if (cap_user_time_short) cycles = time_cycles + ((cycles - time_cycles) & time_mask);
  uint64_t quot = cycles >> time_shift;
  uint64_t rem = cycles & ((uint64_t{1} << time_shift) - 1);
  uint64_t mult = static_cast<uint32_t>(time_mult);
  return time_zero + quot * mult + ((rem * mult) >> time_shift);
}

JitTool::~JitTool() = default;  // made_ and the file writer remove what was not kept

void JitTool::Commit() {
  if (file_writer_) file_writer_->KeepFiles();
  for (base::PendingFile& file : made_) file.Keep();
  made_.clear();
}

absl::Status JitTool::Begin(Header& header) {
  events_ = header.events;
  return absl::OkStatus();
}

absl::Status JitTool::EmitPendingUpTo(uint64_t time, RecordSink& out) {
  while (!pending_.empty() && pending_.top().time <= time) {
    if (absl::Status s = out.Emit(pending_.top().record.view()); !s.ok()) return s;
    pending_.pop();
  }
  return absl::OkStatus();
}

absl::Status JitTool::Process(const Record& record, RecordSink& out) {
  if (record.type() == PERF_RECORD_TIME_CONV) {
    absl::StatusOr<TimeConversion> tc = TimeConversion::From(record);
    if (!tc.ok()) return tc.status();
    time_conversion_ = *tc;
    return out.Emit(record);
  }
  if (!pending_.empty()) {
    if (std::optional<uint64_t> time = events_.TimeOf(record)) {
      if (absl::Status s = EmitPendingUpTo(*time, out); !s.ok()) return s;
    }
  }
  if (record.type() == PERF_RECORD_MMAP) {
    absl::StatusOr<MmapRecord> mmap = MmapRecord::From(record);
    if (!mmap.ok()) return mmap.status();
    return ProcessMapping(record, mmap->filename(), mmap->pid(), out);
  }
  if (record.type() == PERF_RECORD_MMAP2) {
    absl::StatusOr<Mmap2Record> mmap = Mmap2Record::From(record);
    if (!mmap.ok()) return mmap.status();
    return ProcessMapping(record, mmap->filename(), mmap->pid(), out);
  }
  return out.Emit(record);
}

absl::Status JitTool::ProcessMapping(const Record& record, absl::string_view filename,
                                     uint32_t pid, RecordSink& out) {
  if (std::optional<uint32_t> name_pid = JitDumpPidOf(filename)) {
    std::optional<FoundDump> dump = FindDump(record, filename, pid, *name_pid);
    if (!dump) return out.Emit(record);
    if (processed_dumps_.contains(dump->path)) return absl::OkStatus();  // mapped again
    processed_dumps_.insert(dump->path);
    return ProcessDump(record, *dump, pid == 0 ? *name_pid : pid);
  }
  if (processed_pids_.contains(pid) && IsAnonymousMapping(filename)) {
    ++stats_.anon_mmaps_dropped;
    return absl::OkStatus();
  }
  return out.Emit(record);
}

std::optional<JitTool::FoundDump> JitTool::FindDump(const Record& marker,
                                                   absl::string_view filename, uint32_t pid,
                                                   uint32_t name_pid) {
  // Another pid than the mapping's: a process in a pid namespace, if the
  // dump says it was written by that namespace pid.
  bool namespaced = pid != 0 && pid != name_pid;
  int recorded_path_errno = 0;  // the last candidate's
  for (const std::string& path : DumpCandidates(filename, pid)) {
    if (access(path.c_str(), R_OK) != 0) {
      recorded_path_errno = errno;
      continue;
    }
    if (namespaced) {
      absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
      if (!reader.ok() || (*reader)->header().pid != name_pid) continue;
    }
    return FoundDump{path, namespaced};
  }
  if (namespaced) {
    warnings_.push_back(absl::StrCat(
        "offset ", marker.file_offset(), ": ", filename, " is mapped by pid ", pid,
        ", and no readable jitdump there has pid ", name_pid,
        " in its header (a process in a pid namespace); the mmap is kept"));
  } else {
    warnings_.push_back(absl::StrCat("offset ", marker.file_offset(), ": jitdump ", filename,
                                     " cannot be read (", std::strerror(recorded_path_errno),
                                     "); its marker mmap is kept"));
  }
  return std::nullopt;
}

absl::Status JitTool::CheckClock(const std::string& path) const {
  for (size_t i = 0; i < events_.size(); ++i) {
    const EventAttr& attr = events_.attrs()[i];
    if (attr.flag(kAttrFlagUseClockid) && attr.clockid() == kClockMonotonic) continue;
    std::string clock = attr.flag(kAttrFlagUseClockid)
                            ? absl::StrCat("clock id ", attr.clockid())
                            : std::string("the default perf clock");
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": jitted code must be sampled with CLOCK_MONOTONIC, the clock of the jitdump's "
              "timestamps, but event ", i, " (", DescribeAttr(attr), ") was recorded with ",
        clock, "; record again with `perf record -k 1 ...` (or -k mono)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<JitTool::DumpContext> JitTool::ContextFor(const Record& marker,
                                                         const JitDumpReader& reader) {
  DumpContext context;
  context.dir = options_.jit_dir.empty() ? Dirname(reader.path()) : options_.jit_dir;
  context.dir = Absolute(context.dir);
  context.claimed_names = base::ClaimedNamesIn(base::ResolvedFolder(context.dir));
  context.arch_timestamp = reader.header().arch_timestamp();
  bool big_endian = (std::endian::native == std::endian::big) != reader.header().cross_endian;
  context.target = elf::JitElfTarget::ForMachine(reader.header().elf_mach, big_endian);
  if (!events_.empty()) {
    absl::StatusOr<size_t> index = events_.IndexOf(marker);
    size_t event = index.ok() ? *index : 0;
    context.format = events_.format(event);
    if (context.format.trailer_size() > 0) {
      absl::StatusOr<SampleId> id = DecodeSampleId(context.format, marker.bytes());
      if (!id.ok()) return id.status();
      context.sample_id = *id;
    }
  }
  return context;
}

absl::Status JitTool::CheckNotAnOutput(const DumpContext& context, const std::string& name) {
  if (!absl::c_linear_search(context.claimed_names, name)) return absl::OkStatus();
  return base::CheckNotAnOutput(absl::StrCat(context.dir, "/", name), nullptr,
                                "ELF file this run generates");
}

absl::Status JitTool::ProcessDump(const Record& marker, const FoundDump& dump, uint32_t pid) {
  const std::string& path = dump.path;
  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
  if (!reader.ok()) return reader.status();
  if ((*reader)->header().arch_timestamp()) {
    if (!time_conversion_) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, ": the jitdump has CPU timestamps (ARCH_TIMESTAMP) but the recording has no "
                "TIME_CONV record to convert them"));
    }
  } else if (absl::Status s = CheckClock(path); !s.ok()) {
    return s;
  }
  absl::StatusOr<DumpContext> context = ContextFor(marker, **reader);
  if (!context.ok()) return context.status();
  context->file_pid = (*reader)->header().pid;
  if (dump.namespaced) context->outer_pid = pid;

  std::unique_ptr<elf::MergedJitElfWriter> merged;
  if (options_.merge) {
    std::string name = absl::StrCat("jitted-", context->file_pid, "-merged.so");
    if (absl::Status s = CheckNotAnOutput(*context, name); !s.ok()) return s;
    context->merged_path = absl::StrCat(context->dir, "/", name);
    absl::StatusOr<std::unique_ptr<elf::MergedJitElfWriter>> writer =
        elf::MergedJitElfWriter::Create(context->merged_path, context->target);
    if (!writer.ok()) return writer.status();
    merged = std::move(*writer);
  }
  // Per code_index: its file's index in file_ids_ (per-function) or its
  // offset (merged).
  absl::flat_hash_map<uint64_t, size_t> files;
  absl::flat_hash_map<uint64_t, uint64_t> offsets;
  std::vector<PlannedMmap> planned;
  // Whether a merged load came with (empty) unwinding info: the merged file
  // then says "no tables", so that perf falls back to frame pointers there
  // as it does for such a load's own file.
  bool merged_without_tables = false;
  debug_info_.reset();
  unwinding_info_.reset();
  file_ids_.clear();
  auto time_of = [&](uint64_t timestamp) {
    return context->arch_timestamp ? time_conversion_->ToPerfTime(timestamp) : timestamp;
  };

  while (true) {
    absl::StatusOr<std::optional<JitRecord>> record = (*reader)->Next();
    if (!record.ok()) return FlushFiles(record.status());
    if (!*record) break;
    JitRecord& r = **record;
    if (auto* debug = std::get_if<DebugInfo>(&r.body)) {
      debug_info_ = std::move(*debug);
    } else if (auto* unwinding = std::get_if<UnwindingInfo>(&r.body)) {
      unwinding_info_ = std::move(*unwinding);
    } else if (auto* load = std::get_if<CodeLoad>(&r.body)) {
      ++stats_.code_loads;
      uint64_t len = load->code_size;
      if (unwinding_info_ && unwinding_info_->mapped_size > 0) {
        len = AlignUp(load->code_size, 8) + unwinding_info_->mapped_size;
      }
      // Unwinding tables need a file of their own (see jit_tool.h).
      bool own_file = !merged || (unwinding_info_ && (unwinding_info_->mapped_size > 0 ||
                                                      !unwinding_info_->eh_frame().empty()));
      if (!own_file && unwinding_info_) merged_without_tables = true;
      absl::StatusOr<std::optional<size_t>> written =
          WriteLoad(*context, *load, own_file ? nullptr : merged.get(), offsets);
      if (!written.ok()) return FlushFiles(written.status());
      if (*written) {
        files[load->code_index] = **written;
        offsets.erase(load->code_index);
      } else {
        files.erase(load->code_index);
      }
      planned.push_back(PlannedMmap{time_of(r.timestamp), load->pid, load->tid, load->code_addr,
                                    len, load->code_index});
      debug_info_.reset();
      unwinding_info_.reset();
    } else if (auto* move = std::get_if<CodeMove>(&r.body)) {
      ++stats_.code_moves;
      planned.push_back(PlannedMmap{time_of(r.timestamp), move->pid, move->tid,
                                    move->new_code_addr, move->code_size, move->code_index});
    }
  }
  if (absl::Status s = FlushFiles(); !s.ok()) return s;
  for (const std::string& warning : (*reader)->warnings()) warnings_.push_back(warning);

  FileId merged_id;
  if (merged && merged->functions() > 0) {
    if (merged_without_tables) merged->AddEmptyUnwindingTables();
    absl::StatusOr<struct stat> st = merged->Finish();
    if (!st.ok()) return st.status();
    merged_id = FileId{st->st_dev, st->st_ino};
    if (base::PendingFile pending = merged->TakePending(); pending.listed()) {
      made_.push_back(std::move(pending));
    }
    written_.emplace_back(context->merged_path, merged->build_id());
    ++stats_.files_written;
  }
  for (const PlannedMmap& p : planned) {
    std::string filename;
    uint64_t pgoff;
    FileId id;
    if (auto file = files.find(p.code_index); file != files.end()) {
      filename = absl::StrCat(context->dir, "/jitted-", context->file_pid, "-", p.code_index,
                              ".so");
      pgoff = context->target.text_offset();
      id = file_ids_[file->second];
    } else if (auto offset = offsets.find(p.code_index); offset != offsets.end()) {
      filename = context->merged_path;
      pgoff = offset->second;
      id = merged_id;
    } else {
      warnings_.push_back(absl::StrCat(path, ": CODE_MOVE of code_index ", p.code_index,
                                       " that was never loaded; ignored"));
      continue;
    }
    uint32_t mmap_pid = context->outer_pid.value_or(p.pid);
    uint32_t mmap_tid = context->outer_pid.value_or(p.tid);
    if (absl::Status s = QueueMmap2(*context, p.time, mmap_pid, mmap_tid, p.start, p.len, pgoff,
                                    id, filename);
        !s.ok()) {
      return s;
    }
  }
  processed_pids_.insert(pid);
  ++stats_.dumps;
  return absl::OkStatus();
}

JitFileWriter& JitTool::FileWriter() {
  if (!file_writer_) {
    file_writer_ = std::make_unique<JitFileWriter>(
        options_.create_ahead, [this](const std::string& path, const elf::Sha1::Digest& build_id,
                                      const struct stat& st, uint64_t index) {
          written_.emplace_back(path, build_id);
          ++stats_.files_written;
          file_ids_[index] = FileId{st.st_dev, st.st_ino};
        });
  }
  return *file_writer_;
}

absl::Status JitTool::FlushFiles(absl::Status status) {
  if (file_writer_) {
    if (absl::Status s = file_writer_->Flush(); !s.ok()) return s;
  }
  return status;
}

absl::StatusOr<std::optional<size_t>> JitTool::WriteLoad(
    const DumpContext& context, const CodeLoad& load, elf::MergedJitElfWriter* merged,
    absl::flat_hash_map<uint64_t, uint64_t>& merged_offsets) {
  lines_buffer_.clear();
  if (debug_info_) {
    for (const DebugEntry& entry : debug_info_->entries) {
      if (entry.addr < load.code_addr) continue;
      lines_buffer_.push_back(elf::JitLine{entry.addr - load.code_addr, entry.line, entry.discrim,
                                           absl::string_view(entry.file)});
    }
  }
  elf::JitFunction function;
  function.name = load.name;
  function.code = load.code;
  function.lines = lines_buffer_;
  if (merged) {
    absl::StatusOr<uint64_t> offset = merged->Add(function);
    if (!offset.ok()) return offset.status();
    merged_offsets[load.code_index] = *offset;
    return std::optional<size_t>();
  }
  if (unwinding_info_) {
    function.has_unwinding = true;
    function.eh_frame = unwinding_info_->eh_frame();
    function.eh_frame_hdr = unwinding_info_->eh_frame_hdr();
  }
  std::vector<std::byte> bytes;
  elf::Sha1::Digest build_id = elf::BuildJitElf(context.target, function, bytes);
  std::string name = absl::StrCat("jitted-", context.file_pid, "-", load.code_index, ".so");
  if (absl::Status s = CheckNotAnOutput(context, name); !s.ok()) return s;
  std::string file = absl::StrCat(context.dir, "/", name);
  size_t index = file_ids_.size();
  file_ids_.emplace_back();
  if (absl::Status s = FileWriter().Add(std::move(file), std::move(bytes), build_id, index);
      !s.ok()) {
    return s;
  }
  return std::optional<size_t>(index);
}

absl::Status JitTool::QueueMmap2(const DumpContext& context, uint64_t timestamp, uint32_t pid,
                                 uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
                                 FileId file, const std::string& filename) {
  Mmap2Fields fields;
  fields.pid = pid;
  fields.tid = tid;
  fields.start = start;
  fields.len = len;
  fields.pgoff = pgoff;
  fields.maj = major(file.dev);
  fields.min = minor(file.dev);
  fields.ino = file.ino;
  fields.ino_generation = 1;  // as perf writes it
  fields.prot = PROT_READ | PROT_EXEC;
  fields.flags = MAP_SHARED;
  fields.filename = filename;
  SampleId id = context.sample_id;
  id.pid = pid;
  id.tid = tid;
  id.time = timestamp;
  std::vector<std::byte> trailer;
  EncodeSampleId(context.format, id, trailer);
  absl::StatusOr<std::vector<std::byte>> bytes =
      EncodeMmap2(fields, PERF_RECORD_MISC_USER, trailer);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(filename, ": MMAP2 record too large: ", bytes.status().message()));
  }
  pending_.push(Pending{timestamp, sequence_++, OwnedRecord(std::move(*bytes), {}, 0)});
  ++stats_.mmaps_injected;
  return absl::OkStatus();
}

void JitTool::AddBuildIdEntries(FeatureSet& features) const {
  constexpr int32_t kHostMachinePid = -1;  // perf's HOST_KERNEL_ID
  std::vector<std::byte>& section = features[HEADER_BUILD_ID];
  for (const auto& [path, build_id] : written_) {
    BuildIdEntry entry;
    entry.pid = kHostMachinePid;
    entry.misc = PERF_RECORD_MISC_USER;
    entry.build_id.assign(reinterpret_cast<const std::byte*>(build_id.data()),
                          reinterpret_cast<const std::byte*>(build_id.data() + build_id.size()));
    entry.filename = path;
    AppendBuildIdEntry(entry, section);
  }
}

absl::Status JitTool::StoreInBuildIdCache() {
  for (const auto& [path, build_id] : written_) {
    if (absl::Status s = AddToBuildIdCache(options_.buildid_cache_dir, path, build_id, made_);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status JitTool::End(RecordSink& out, FeatureSet& features) {
  if (absl::Status s = EmitPendingUpTo(UINT64_MAX, out); !s.ok()) return s;
  // A file written again (the same code_index loaded twice) counts once, last.
  std::stable_sort(written_.begin(), written_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  auto last = [](const auto& a, const auto& b) { return a.first == b.first; };
  std::reverse(written_.begin(), written_.end());
  written_.erase(std::unique(written_.begin(), written_.end(), last), written_.end());
  std::reverse(written_.begin(), written_.end());
  if (!written_.empty()) AddBuildIdEntries(features);
  if (!options_.buildid_cache_dir.empty()) return StoreInBuildIdCache();
  return absl::OkStatus();
}

}  // namespace perftk::jit

#include "jit/jit_tool.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "base/file_roles.h"
#include "base/printable.h"
#include "base/recorded_name.h"
#include "base/system_error.h"
#include "elf/build_id_cache.h"
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

std::string FunctionFileName(uint32_t file_pid, uint64_t code_index) {
  return absl::StrCat("jitted-", file_pid, "-", code_index, ".so");
}

std::string MergedFileName(uint32_t file_pid) {
  return absl::StrCat("jitted-", file_pid, "-merged.so");
}

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

JitTool::~JitTool() {
  // What was not kept goes newest first, so that a folder of the build-id
  // cache goes after what was made in it (in order, each folder was still
  // full when its turn came, and stayed). The file writer removes its own.
  while (!made_.empty()) {
    made_.back().Remove();
    made_.pop_back();
  }
}

void JitTool::Commit() {
  if (file_writer_) file_writer_->KeepFiles();
  for (base::PendingFile& file : made_) file.Keep();
  made_.clear();
}

absl::Status JitTool::Begin(perf::Header& header) {
  events_ = header.events;
  return absl::OkStatus();
}

absl::Status JitTool::EmitPendingUpTo(uint64_t time, pipeline::RecordSink& out) {
  while (!pending_.empty() && pending_.top().time <= time) {
    if (absl::Status s = out.Emit(pending_.top().record.view()); !s.ok()) return s;
    pending_.pop();
  }
  return absl::OkStatus();
}

absl::Status JitTool::Process(const perf::Record& record, pipeline::RecordSink& out) {
  if (record.type() == PERF_RECORD_TIME_CONV) {
    absl::StatusOr<perf::TimeConversion> tc = perf::TimeConversion::From(record);
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
    absl::StatusOr<perf::MmapRecord> mmap = perf::MmapRecord::From(record);
    if (!mmap.ok()) return mmap.status();
    return ProcessMapping(record, mmap->filename(), mmap->pid(), out);
  }
  if (record.type() == PERF_RECORD_MMAP2) {
    absl::StatusOr<perf::Mmap2Record> mmap = perf::Mmap2Record::From(record);
    if (!mmap.ok()) return mmap.status();
    return ProcessMapping(record, mmap->filename(), mmap->pid(), out);
  }
  return out.Emit(record);
}

absl::Status JitTool::ProcessMapping(const perf::Record& record, absl::string_view filename,
                                     uint32_t pid, pipeline::RecordSink& out) {
  if (std::optional<uint32_t> name_pid = JitDumpPidOf(filename)) {
    absl::StatusOr<std::optional<FoundDump>> found = FindDump(record, filename, pid, *name_pid);
    if (!found.ok()) return found.status();
    std::optional<FoundDump>& dump = *found;
    if (!dump) return out.Emit(record);
    if (processed_dumps_.contains(dump->path)) return absl::OkStatus();  // mapped again
    processed_dumps_.insert(dump->path);
    return ProcessDump(record, *dump, pid == 0 ? *name_pid : pid);
  }
  if (IsAnonymousMapping(filename)) {
    anonymous_code_pids_.insert(pid);
    if (processed_pids_.contains(pid)) {
      ++stats_.anon_mmaps_dropped;
      return absl::OkStatus();
    }
  }
  return out.Emit(record);
}

std::vector<uint32_t> JitTool::PidsWithoutJitdump() const {
  std::vector<uint32_t> pids;
  for (uint32_t pid : anonymous_code_pids_) {
    if (!processed_pids_.contains(pid)) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

absl::StatusOr<std::optional<JitTool::FoundDump>> JitTool::FindDump(const perf::Record& marker,
                                                                    absl::string_view filename,
                                                                    uint32_t pid,
                                                                    uint32_t name_pid) {
  // The path comes from the recording, and the jitted files are written
  // beside it: one with a '..' component is refused (base/recorded_name.h).
  if (base::HasDotDotComponent(filename)) {
    warnings_.Warn(absl::StrCat(absl::StrFormat("offset %#x: jitdump ", marker.file_offset()),
                                base::Printable(filename),
                                ": the recorded path has a '..' component: refused; its marker "
                                "mmap is kept"));
    return std::nullopt;
  }
  // Another pid than the mapping's: a process in a pid namespace, if the
  // dump says it was written by that namespace pid.
  bool namespaced = pid != 0 && pid != name_pid;
  int recorded_path_errno = 0;  // the last candidate's
  const std::vector<std::string> candidates = DumpCandidates(filename, pid);
  for (const std::string& path : candidates) {
    if (access(path.c_str(), R_OK) != 0) {
      recorded_path_errno = errno;
      // /proc/PID/root of a pid now another user's (EACCES): not this one.
      // At the recorded path, the last, only a dump that is not there is
      // missing; EACCES, EIO or EMFILE would drop its code's symbols for a
      // reason of this machine's.
      if (&path != &candidates.back() || errno == ENOENT || errno == ENOTDIR) continue;
      return absl::FailedPreconditionError(
          absl::StrCat(absl::StrFormat("offset %#x: jitdump ", marker.file_offset()),
                       base::Printable(path), " cannot be read: ", base::SystemErrorText(errno)));
    }
    if (namespaced) {
      absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
      if (!reader.ok() || (*reader)->header().pid != name_pid) continue;
    }
    return FoundDump{path, namespaced};
  }
  if (namespaced) {
    warnings_.Warn(absl::StrCat(absl::StrFormat("offset %#x: ", marker.file_offset()),
                                base::Printable(filename), " is mapped by pid ", pid,
                                ", and no readable jitdump there has pid ", name_pid,
                                " in its header (a process in a pid namespace); the mmap is kept"));
  } else {
    warnings_.Warn(absl::StrCat(absl::StrFormat("offset %#x: jitdump ", marker.file_offset()),
                                base::Printable(filename), " cannot be read (",
                                std::strerror(recorded_path_errno), "); its marker mmap is kept"));
  }
  return std::nullopt;
}

absl::Status JitTool::CheckClock(const std::string& path) const {
  for (size_t i = 0; i < events_.size(); ++i) {
    const perf::EventAttr& attr = events_.attrs()[i];
    if (attr.flag(kAttrFlagUseClockid) && attr.clockid() == kClockMonotonic) continue;
    std::string clock = attr.flag(kAttrFlagUseClockid) ? absl::StrCat("clock id ", attr.clockid())
                                                       : std::string("the default perf clock");
    return absl::FailedPreconditionError(absl::StrCat(
        path,
        ": jitted code must be sampled with CLOCK_MONOTONIC, the clock of the jitdump's "
        "timestamps, but event ",
        i, " (", perf::DescribeAttr(attr), ") was recorded with ", clock,
        "; record again with `perf record -k 1 ...` (or -k mono)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<JitDumpReader>> JitTool::OpenDump(const std::string& path) const {
  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
  if (!reader.ok()) return reader.status();
  if ((*reader)->header().arch_timestamp()) {
    if (!time_conversion_) {
      return absl::FailedPreconditionError(
          absl::StrCat(path,
                       ": the jitdump has CPU timestamps (ARCH_TIMESTAMP) but the recording has no "
                       "TIME_CONV record to convert them"));
    }
  } else if (absl::Status s = CheckClock(path); !s.ok()) {
    return s;
  }
  return reader;
}

absl::StatusOr<JitTool::DumpContext> JitTool::ContextFor(const perf::Record& marker,
                                                         const JitDumpReader& reader,
                                                         const FoundDump& dump,
                                                         uint32_t pid) const {
  DumpContext context;
  context.dir = options_.jit_dir.empty() ? Dirname(reader.path()) : options_.jit_dir;
  context.dir = Absolute(context.dir);
  context.claimed_names = base::ClaimedNamesIn(base::ResolvedFolder(context.dir));
  context.file_pid = reader.header().pid;
  context.dump_path = reader.path();
  if (dump.namespaced) context.outer_pid = pid;
  context.arch_timestamp = reader.header().arch_timestamp();
  bool big_endian = (std::endian::native == std::endian::big) != reader.header().cross_endian;
  context.target = elf::JitElfTarget::ForMachine(reader.header().elf_mach, big_endian);
  if (!events_.empty()) {
    absl::StatusOr<size_t> index = events_.IndexOf(marker);
    size_t event = index.ok() ? *index : 0;
    context.format = events_.format(event);
    if (context.format.trailer_size() > 0) {
      absl::StatusOr<perf::SampleId> id = perf::DecodeSampleId(context.format, marker.bytes());
      if (!id.ok()) return id.status();
      context.sample_id = *id;
    }
  }
  if (options_.merge) {
    context.merged_path = absl::StrCat(context.dir, "/", MergedFileName(context.file_pid));
  }
  return context;
}

absl::Status JitTool::CheckNotAnOutput(const DumpContext& context, const std::string& name) {
  if (!absl::c_linear_search(context.claimed_names, name)) return absl::OkStatus();
  return base::CheckNotAnOutput(absl::StrCat(context.dir, "/", name), nullptr,
                                "ELF file this run generates");
}

absl::Status JitTool::ProcessDump(const perf::Record& marker, const FoundDump& dump, uint32_t pid) {
  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = OpenDump(dump.path);
  if (!reader.ok()) return reader.status();
  absl::StatusOr<DumpContext> context = ContextFor(marker, **reader, dump, pid);
  if (!context.ok()) return context.status();
  std::unique_ptr<elf::MergedJitElfWriter> merged;
  if (options_.merge) {
    absl::StatusOr<std::unique_ptr<elf::MergedJitElfWriter>> writer = OpenMergedFile(*context);
    if (!writer.ok()) return writer.status();
    merged = std::move(*writer);
  }
  absl::StatusOr<DumpCode> code = WriteDumpCode(*context, **reader, merged.get());
  if (!code.ok()) return code.status();
  for (const std::string& warning : (*reader)->warnings()) warnings_.Warn(warning);
  FileId merged_id;
  if (merged && merged->functions() > 0) {
    absl::StatusOr<FileId> id = FinishMergedFile(*context, *merged);
    if (!id.ok()) return id.status();
    merged_id = *id;
  }
  if (absl::Status s = QueueMmaps(*context, dump.path, *code, merged_id); !s.ok()) return s;
  processed_pids_.insert(pid);
  ++stats_.dumps;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<elf::MergedJitElfWriter>> JitTool::OpenMergedFile(
    const DumpContext& context) const {
  if (absl::Status s = CheckNotAnOutput(context, MergedFileName(context.file_pid)); !s.ok()) {
    return s;
  }
  return elf::MergedJitElfWriter::Create(context.merged_path, context.target);
}

absl::StatusOr<JitTool::DumpCode> JitTool::WriteDumpCode(const DumpContext& context,
                                                         JitDumpReader& reader,
                                                         elf::MergedJitElfWriter* merged) {
  DumpCode code;
  LoadInfo info;
  file_ids_.clear();
  auto time_of = [&](uint64_t timestamp) {
    return context.arch_timestamp ? time_conversion_->ToPerfTime(timestamp) : timestamp;
  };
  while (true) {
    absl::StatusOr<std::optional<JitRecord>> record = reader.Next();
    if (!record.ok()) return FlushFiles(record.status());
    if (!*record) break;
    JitRecord& r = **record;
    if (auto* debug = std::get_if<DebugInfo>(&r.body)) {
      info.debug = std::move(*debug);
    } else if (auto* unwinding = std::get_if<UnwindingInfo>(&r.body)) {
      info.unwinding = std::move(*unwinding);
      info.unwinding_offset = r.offset;
    } else if (auto* load = std::get_if<CodeLoad>(&r.body)) {
      ++stats_.code_loads;
      absl::StatusOr<CodeFile> file = WriteLoad(context, *load, info, merged);
      if (!file.ok()) return FlushFiles(file.status());
      // A file of the load's own maps its unwinding tables after the code, as
      // perf's does; the merged file keeps them after all the code.
      uint64_t len = load->code_size;
      if (file->file_index && info.unwinding && info.unwinding->mapped_size > 0) {
        len = base::AlignUp(load->code_size, 8) + info.unwinding->mapped_size;
      }
      code.files[load->code_index] = *std::move(file);
      code.planned.push_back(PlannedMmap{time_of(r.timestamp), load->pid, load->tid,
                                         load->code_addr, len, load->code_index});
      info = LoadInfo();
    } else if (auto* move = std::get_if<CodeMove>(&r.body)) {
      ++stats_.code_moves;
      code.planned.push_back(PlannedMmap{time_of(r.timestamp), move->pid, move->tid,
                                         move->new_code_addr, move->code_size, move->code_index});
    }
  }
  if (absl::Status s = FlushFiles(); !s.ok()) return s;
  return code;
}

absl::StatusOr<JitTool::FileId> JitTool::FinishMergedFile(const DumpContext& context,
                                                          elf::MergedJitElfWriter& merged) {
  absl::StatusOr<struct stat> st = merged.Finish();
  if (!st.ok()) return st.status();
  if (base::PendingFile pending = merged.TakePending(); pending.listed()) {
    made_.push_back(std::move(pending));
  }
  written_.emplace_back(context.merged_path, base::BuildId::FromBytes(merged.build_id()));
  ++stats_.files_written;
  return FileId{st->st_dev, st->st_ino};
}

absl::Status JitTool::QueueMmaps(const DumpContext& context, const std::string& dump_path,
                                 const DumpCode& code, FileId merged_id) {
  for (const PlannedMmap& p : code.planned) {
    auto file = code.files.find(p.code_index);
    if (file == code.files.end()) {
      warnings_.Warn(absl::StrCat(dump_path, ": CODE_MOVE of code_index ", p.code_index,
                                  " that was never loaded; ignored"));
      continue;
    }
    const CodeFile& f = file->second;
    FileId id = f.file_index ? file_ids_[*f.file_index] : merged_id;
    uint32_t mmap_pid = context.outer_pid.value_or(p.pid);
    uint32_t mmap_tid = context.outer_pid.value_or(p.tid);
    if (absl::Status s =
            QueueMmap2(context, p.time, mmap_pid, mmap_tid, p.start, p.len, f.pgoff, id, f.path);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

JitFileWriter& JitTool::FileWriter() {
  if (!file_writer_) {
    file_writer_ = std::make_unique<JitFileWriter>(
        options_.create_ahead, [this](const std::string& path, const base::BuildId& build_id,
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

absl::StatusOr<JitTool::CodeFile> JitTool::WriteLoad(const DumpContext& context,
                                                     const CodeLoad& load, const LoadInfo& info,
                                                     elf::MergedJitElfWriter* merged) {
  lines_buffer_.clear();
  if (info.debug) {
    for (const DebugEntry& entry : info.debug->entries) {
      if (entry.addr < load.code_addr) continue;
      lines_buffer_.push_back(elf::JitLine{entry.addr - load.code_addr, entry.line, entry.discrim,
                                           absl::string_view(entry.file)});
    }
  }
  elf::JitFunction function;
  function.name = load.name;
  function.code = load.code;
  function.lines = lines_buffer_;
  if (info.unwinding) {
    function.has_unwinding = true;
    function.eh_frame = info.unwinding->eh_frame();
    function.eh_frame_hdr = info.unwinding->eh_frame_hdr();
  }
  if (merged) {
    absl::StatusOr<uint64_t> offset = merged->Add(function);
    if (offset.ok()) return CodeFile{context.merged_path, *offset, std::nullopt};
    if (offset.status().code() != absl::StatusCode::kInvalidArgument) return offset.status();
    // Tables the merged file cannot take: the load keeps a file of its own.
    ++stats_.own_files_for_unwinding;
    warnings_.Warn(absl::StrCat(context.dump_path,
                                absl::StrFormat(" offset %#x", info.unwinding_offset),
                                ": UNWINDING_INFO of code_index ", load.code_index, ": ",
                                offset.status().message(), "; the load keeps a file of its own"));
  }
  std::vector<std::byte> bytes;
  const base::BuildId build_id =
      base::BuildId::FromBytes(elf::BuildJitElf(context.target, function, bytes));
  std::string name = FunctionFileName(context.file_pid, load.code_index);
  if (absl::Status s = CheckNotAnOutput(context, name); !s.ok()) return s;
  CodeFile file{absl::StrCat(context.dir, "/", name), context.target.text_offset(),
                file_ids_.size()};
  file_ids_.emplace_back();
  if (absl::Status s = FileWriter().Add(file.path, std::move(bytes), build_id, *file.file_index);
      !s.ok()) {
    return s;
  }
  return file;
}

absl::Status JitTool::QueueMmap2(const DumpContext& context, uint64_t timestamp, uint32_t pid,
                                 uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
                                 FileId file, const std::string& filename) {
  perf::Mmap2Fields fields;
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
  perf::SampleId id = context.sample_id;
  id.pid = pid;
  id.tid = tid;
  id.time = timestamp;
  std::vector<std::byte> trailer;
  perf::EncodeSampleId(context.format, id, trailer);
  absl::StatusOr<std::vector<std::byte>> bytes =
      perf::EncodeMmap2(fields, PERF_RECORD_MISC_USER, trailer);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(filename, ": MMAP2 record too large: ", bytes.status().message()));
  }
  pending_.push(Pending{timestamp, sequence_++, perf::OwnedRecord(std::move(*bytes), {}, 0)});
  ++stats_.mmaps_injected;
  return absl::OkStatus();
}

void JitTool::AddBuildIdEntries(perf::FeatureSet& features) const {
  constexpr int32_t kHostMachinePid = -1;  // perf's HOST_KERNEL_ID
  std::vector<std::byte>& section = features[HEADER_BUILD_ID];
  for (const auto& [path, build_id] : written_) {
    perf::BuildIdEntry entry;
    entry.pid = kHostMachinePid;
    entry.misc = PERF_RECORD_MISC_USER;
    entry.build_id = build_id;
    entry.filename = path;
    perf::AppendBuildIdEntry(entry, section);
  }
}

absl::Status JitTool::StoreInBuildIdCache() {
  for (const auto& [path, build_id] : written_) {
    if (absl::Status s = elf::AddToBuildIdCache(options_.buildid_cache_dir, path, build_id, made_);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status JitTool::End(pipeline::RecordSink& out, perf::FeatureSet& features) {
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

#include "build_ids/build_id_tool.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/bytes.h"
#include "base/input_file.h"
#include "base/printable.h"
#include "base/recorded_name.h"
#include "elf/build_id.h"
#include "elf/elf_file.h"
#include "elf/vdso.h"
#include "machine/record_events.h"
#include "perf/features.h"
#include "perf/record.h"

namespace perftk::build_ids {
namespace {

// perf's name for the kernel's own map, and the prefix of its variants.
constexpr absl::string_view kKernelMapPrefix = "[kernel.kallsyms]";

// Notes sections are a few hundred bytes; a file larger than this is not one.
constexpr size_t kNotesLimit = 1 << 20;

// A module's name as /sys/module knows it: "[ext4]" or ".../ext4.ko[.xz]".
std::string ModuleName(absl::string_view dso_name) {
  if (absl::StartsWith(dso_name, "[") && absl::EndsWith(dso_name, "]")) {
    return std::string(dso_name.substr(1, dso_name.size() - 2));
  }
  const size_t slash = dso_name.rfind('/');
  absl::string_view base = slash == absl::string_view::npos ? dso_name : dso_name.substr(slash + 1);
  const size_t ko = base.find(".ko");
  if (ko == absl::string_view::npos) return "";
  std::string name(base.substr(0, ko));
  for (char& c : name) {
    if (c == '-') c = '_';  // /sys/module spells every module name with '_'
  }
  return name;
}

// Names that stand for memory with no file: [heap], [stack], [vdso],
// //anon, /dev/zero, /memfd:..., "" and the like.
bool HasNoFile(absl::string_view name) {
  return name.empty() || name[0] != '/' || absl::StartsWith(name, "//") ||
         absl::StartsWith(name, "/dev/") || absl::StartsWith(name, "/memfd:") ||
         absl::StartsWith(name, "/SYSV") || absl::EndsWith(name, " (deleted)");
}

}  // namespace

BuildIdTool::BuildIdTool(BuildIdSettings settings, base::WarningSink& warnings)
    : settings_(std::move(settings)), warnings_(warnings) {}

absl::Status BuildIdTool::Begin(perf::Header& header) {
  events_ = header.events;
  absl::StatusOr<std::vector<perf::BuildIdEntry>> entries = perf::ReadBuildIds(header.features);
  if (entries.ok()) {
    for (const perf::BuildIdEntry& entry : *entries) named_.insert(entry.filename);
  }
  off_ = settings_.only_without_ids && !named_.empty();
  struct utsname here;
  absl::StatusOr<std::string> host = perf::ReadStringFeature(header.features, HEADER_HOSTNAME);
  absl::StatusOr<std::string> release = perf::ReadStringFeature(header.features, HEADER_OSRELEASE);
  recorded_here_ = uname(&here) == 0 && host.ok() && release.ok() && *host == here.nodename &&
                   *release == here.release;
  return absl::OkStatus();
}

absl::Status BuildIdTool::Process(const perf::Record& record, pipeline::RecordSink& out) {
  if (off_) return out.Emit(record);
  const uint32_t type = record.type();
  if (type == PERF_RECORD_HEADER_BUILD_ID) {
    if (absl::StatusOr<perf::HeaderBuildIdRecord> view = perf::HeaderBuildIdRecord::From(record);
        view.ok()) {
      named_.insert(std::string(view->filename()));
    }
    return out.Emit(record);
  }
  if (machine::ChangesMachines(type)) {  // the model has taken it
    if (settings_.scope == BuildIdScope::kAll &&
        (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2)) {
      absl::StatusOr<machine::MmapEvent> mmap = machine::MmapEventOf(record);
      // Data mappings (ld.so.cache, locale archives) are not code that
      // symbolizes: no id is looked up for them.
      if (mmap.ok() && (mmap->prot & PROT_EXEC) != 0) {
        std::optional<machine::Map> map =
            model().FindMap(0, mmap->pid, record.cpumode(), mmap->start);
        if (map && map->dso != nullptr) {
          if (absl::Status s = Cover(*map->dso, out); !s.ok()) return s;
        }
      }
    }
    return out.Emit(record);
  }
  if (type == PERF_RECORD_SAMPLE && settings_.scope == BuildIdScope::kHit) {
    if (absl::Status s = CoverSampleDso(record, out); !s.ok()) return s;
  }
  return out.Emit(record);
}

absl::Status BuildIdTool::CoverSampleDso(const perf::Record& record, pipeline::RecordSink& out) {
  absl::StatusOr<size_t> index = events_.IndexOf(record);
  if (!index.ok()) return absl::OkStatus();  // the sample itself is the next tool's to judge
  const perf::SampleFormat& format = events_.format(*index);
  if (!(format.sample_type & PERF_SAMPLE_IP)) return absl::OkStatus();
  if (!perf::DecodeSampleInto(format, record.body(), sample_, nullptr,
                              perf::UserStackCopy::kLeaveInPayload)
           .ok()) {
    return absl::OkStatus();
  }
  const uint16_t cpumode = record.cpumode();
  if (machine::IsGuestCpumode(cpumode)) return absl::OkStatus();  // host DSOs only
  std::optional<machine::Map> map =
      model().FindMap(0, static_cast<int32_t>(sample_.pid), cpumode, sample_.ip);
  if (!map || map->dso == nullptr) return absl::OkStatus();
  return Cover(*map->dso, out);
}

absl::Status BuildIdTool::Cover(const machine::Dso& dso, pipeline::RecordSink& out) {
  if (!met_.insert(&dso).second) return absl::OkStatus();
  if (named_.contains(dso.name)) {
    ++stats_.had;
    return absl::OkStatus();
  }
  std::string why;
  absl::StatusOr<base::BuildId> found = FindId(dso, why);
  if (!found.ok()) return found.status();
  const base::BuildId& id = *found;
  if (id.empty()) {
    if (!why.empty()) {
      ++stats_.without;
      warnings_.Warn(absl::StrCat(base::Printable(dso.name), ": no build id (", why, ")"));
    }
    return absl::OkStatus();
  }
  named_.insert(dso.name);
  perf::BuildIdEntry entry;
  entry.pid = machine::kHostMachinePid;
  entry.misc = dso.kernel_space ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
  entry.build_id = id;
  entry.filename = dso.name;
  std::vector<std::byte> bytes;
  perf::AppendBuildIdEntry(entry, bytes);
  base::Store<uint32_t>(bytes.data(), PERF_RECORD_HEADER_BUILD_ID);
  ++stats_.added;
  return out.Emit(perf::Record(bytes, 0));
}

absl::StatusOr<base::BuildId> BuildIdTool::FindId(const machine::Dso& dso, std::string& why) const {
  if (!dso.build_id.empty()) return dso.build_id;  // the MMAP2 carried it
  if (dso.kernel_space) return KernelId(dso, why);
  if (dso.name == "[vdso]") {
    // The kernel maps the same vDSO into every process: this one's is the
    // recorded one when the recording was made on this kernel.
    if (!recorded_here_) return base::BuildId();
    return elf::OwnVdsoBuildId().value_or(base::BuildId());
  }
  if (HasNoFile(dso.name)) return base::BuildId();
  absl::StatusOr<std::string> joined = base::JoinRecordedName(settings_.symfs, dso.name);
  if (!joined.ok()) {
    why = std::string(joined.status().message());
    return base::BuildId();
  }
  const std::string& path = *joined;
  // Stat without opening: a FIFO or device the recording names is never
  // opened (base/recorded_name.h).
  struct stat st;
  if (absl::Status s = base::StatWithoutOpening(path, "ELF file", st); !s.ok()) {
    // Only a file that is not there is missing: EACCES, EIO, EMFILE...
    // would leave the output without an id for a reason of this machine's.
    // A file this user may not read (EACCES, EPERM: a setuid binary in a
    // system-wide recording) is a warning with that reason: ids are
    // added where they can be.
    if (absl::IsPermissionDenied(s)) {
      why = std::string(s.message());
      return base::BuildId();
    }
    if (!absl::IsNotFound(s)) return s;
    why = absl::StrCat(base::Printable(path), " is not there");
    return base::BuildId();
  }
  if (!S_ISREG(st.st_mode)) {
    std::string what = absl::StrCat(base::Printable(path), " is ",
                                    base::DescribeFileType(st.st_mode), ", not a regular file");
    // Under --symfs, the user's own folder: an error. At the recorded path,
    // the recording's word: no id.
    if (!settings_.symfs.empty()) return absl::InvalidArgumentError(what);
    why = std::move(what);
    return base::BuildId();
  }
  const machine::FileId& recorded = dso.file_id;
  if (recorded.ino != 0 && settings_.symfs.empty() &&
      (st.st_ino != recorded.ino || major(st.st_dev) != recorded.maj ||
       minor(st.st_dev) != recorded.min)) {
    why = absl::StrCat(base::Printable(path),
                       " was replaced since the recording: not the inode it mapped");
    return base::BuildId();
  }
  // Its mtime, not its ctime: a hard link (perf buildid-cache -a) or a
  // chmod changes the ctime and not the contents.
  const int64_t modified_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  if (settings_.symfs.empty() && settings_.recording_ended_ns != 0 &&
      modified_ns > settings_.recording_ended_ns) {
    why = absl::StrCat(base::Printable(path),
                       " was modified since the recording (its mtime is later than the "
                       "recording's end): rewritten in place, not the contents it mapped");
    return base::BuildId();
  }
  absl::StatusOr<std::unique_ptr<elf::ElfFile>> elf = elf::ElfFile::Open(path);
  if (!elf.ok()) {
    // Not ELF, or not readable by this user: the file's, a warning. Any
    // other error (EIO, EMFILE) is the system's and ends the run.
    if (!absl::IsInvalidArgument(elf.status()) && !absl::IsNotFound(elf.status()) &&
        !absl::IsPermissionDenied(elf.status())) {
      return elf.status();
    }
    why = std::string(elf.status().message());
    return base::BuildId();
  }
  std::optional<base::BuildId> id = (*elf)->BuildId();
  if (!id) {
    why = absl::StrCat(base::Printable(path), " has no build-id note");
    return base::BuildId();
  }
  return *id;
}

base::BuildId BuildIdTool::KernelId(const machine::Dso& dso, std::string& why) const {
  if (!recorded_here_) {
    why = "recorded on another machine or kernel: give the recording made with build ids";
    return base::BuildId();
  }
  std::string notes_path;
  if (absl::StartsWith(dso.name, kKernelMapPrefix)) {
    notes_path = absl::StrCat(settings_.sys_root, "/kernel/notes");
  } else if (std::string module = ModuleName(dso.name); !module.empty()) {
    // The name comes from the recording: a plain name, or nothing is read.
    absl::StatusOr<std::string> dir = base::JoinRecordedName(
        absl::StrCat(settings_.sys_root, "/module"), module, /*single_component=*/true);
    if (!dir.ok()) {
      why = std::string(dir.status().message());
      return base::BuildId();
    }
    notes_path = absl::StrCat(*dir, "/notes/.note.gnu.build-id");
  } else {
    return base::BuildId();  // bpf programs, kernel symbols without a file
  }
  absl::StatusOr<std::string> notes =
      base::ReadSmallRegularFile(notes_path, "notes file", kNotesLimit);
  if (!notes.ok()) {
    why = std::string(notes.status().message());
    return base::BuildId();
  }
  std::optional<base::BuildId> id = elf::GnuBuildIdInNotes(*notes);
  if (!id) {
    why = absl::StrCat(base::Printable(notes_path), " has no build-id note");
    return base::BuildId();
  }
  return *id;
}

}  // namespace perftk::build_ids

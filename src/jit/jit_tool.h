// JitTool: what `perf inject --jit` does, as a pipeline Tool. Give it the
// records in timestamp order (PipelineOptions::ordered).
//
// - An MMAP/MMAP2 whose file's basename is jit-<pid>.dump is a marker when
//   <pid> is the mapping's pid (or the mapping's pid is 0, as in perf's
//   synthesized mappings), or when the mapping comes from a process in a
//   pid namespace (a container), which names its dump with its pid there:
//   then the dump's header must carry that same pid, and the loads' pids
//   and tids, which are namespace pids, become the mapping's pid. The
//   dump is looked for as the process sees it, under /proc/<pid>/root
//   (its own mount namespace, while it still runs, as perf enters it),
//   then at the recorded path. The marker is dropped and the dump read at
//   that moment.
// - Each CODE_LOAD becomes an ELF file jitted-<pid>-<code_index>.so (pid:
//   the dump's) beside the dump (or in jit_dir), with the DEBUG_INFO /
//   UNWINDING_INFO that came before it. With `merge`, the loads of a dump go
//   into one file jitted-<pid>-merged.so, each at its own offset, with its
//   line table, and their unwinding tables rewritten into the file's one
//   .eh_frame (see elf/eh_frame_merge.h), whose .eh_frame_hdr has no search
//   table: perf's libunwind unwinder reads a file's table at one address for
//   all its mappings, wrong for a file mapped piecewise, so there it falls
//   back to frame pointers, as for a load without tables. A merged load's
//   MMAP2 maps its code only. A load whose tables cannot be rewritten keeps
//   a file of its own, with a warning (JitToolStats::own_files_for_unwinding).
// - Each CODE_LOAD and CODE_MOVE becomes an MMAP2 (prot r-x, a complete
//   sample_id trailer copied from the marker's, with the load's pid, tid and
//   time), emitted among the other records at its timestamp (converted
//   through TIME_CONV for ARCH_TIMESTAMP dumps).
// - Once a pid's dump has been read, its later //anon*, [anon:* and
//   /memfd:* mappings are dropped: they would shadow the jitted code.
// - Without ARCH_TIMESTAMP, every event must use CLOCK_MONOTONIC (-k 1).
// - With create_ahead, a second thread creates the per-function files ahead
//   of their writing (JitFileWriter), which overlaps the kernel's file
//   creation, serial within a directory, with everything else; the output
//   (files, records, warnings, errors) is that of one thread.
// - The build id of every file written goes into the BUILD_ID feature; with
//   buildid_cache_dir, the files are also stored in that build-id cache
//   (see elf/build_id_cache.h). Nothing else is written outside the output.
//
// A marker whose dump cannot be opened is kept as it is, with a warning (as
// perf does); a dump that is corrupt is an error. The files a run creates
// (ELF files, build-id cache entries) are pending files of the run
// (base/pending_file.h): removed when it fails or is interrupted, kept by
// Commit() once the output is in place. A file that existed is replaced
// whole (base::GeneratedFile). A generated file that is an output of the
// run (-o naming jitted-PID-N.so) is refused.
#ifndef PERFTK_JIT_JIT_TOOL_H_
#define PERFTK_JIT_JIT_TOOL_H_

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/pending_file.h"
#include "base/warnings.h"
#include "elf/jit_elf_writer.h"
#include "jit/jit_file_writer.h"
#include "jit/jitdump.h"
#include "perf/header.h"
#include "perf/sample.h"
#include "perf/time_conv.h"
#include "pipeline/tool.h"

namespace perftk::jit {

struct JitToolOptions {
  std::string jit_dir = {};  // empty: beside each dump
  bool merge = false;
  std::string buildid_cache_dir = {};  // empty: no build-id cache
  // How many per-function files a second thread creates ahead of their
  // writing (JitFileWriter); 0: no thread. The output is the same.
  size_t create_ahead = 0;
};

struct JitToolStats {
  uint64_t dumps = 0;
  uint64_t code_loads = 0;
  uint64_t code_moves = 0;
  uint64_t files_written = 0;
  uint64_t mmaps_injected = 0;
  uint64_t anon_mmaps_dropped = 0;
  // With merge: loads whose unwinding tables could not be merged, each
  // written to a file of its own instead (with a warning).
  uint64_t own_files_for_unwinding = 0;
};

// The basename rule: the pid in "jit-<pid>.dump", or nullopt.
std::optional<uint32_t> JitDumpPidOf(absl::string_view filename);
// True for the mappings a processed pid no longer needs.
bool IsAnonymousMapping(absl::string_view filename);
// Where the dump a marker of process `pid` names may be, in the order they
// are tried: the path in the process's root, then the recorded path.
std::vector<std::string> DumpCandidates(absl::string_view filename, uint32_t pid);

class JitTool : public pipeline::Tool {
 public:
  // What is skipped (a dump unreadable, a record out of place) goes to
  // `warnings`, one line each; `warnings` must outlive the tool.
  JitTool(JitToolOptions options, base::WarningSink& warnings)
      : options_(std::move(options)), warnings_(warnings) {}
  ~JitTool() override;

  absl::Status Begin(perf::Header& header) override;
  absl::Status Process(const perf::Record& record, pipeline::RecordSink& out) override;
  absl::Status End(pipeline::RecordSink& out, perf::FeatureSet& features) override;

  // Keeps the ELF files written (otherwise the destructor removes them).
  void Commit();

  const JitToolStats& stats() const { return stats_; }
  // The processes that ran code from anonymous memory (a //anon mapping
  // recorded: code a JIT made) and have no jitdump, in increasing order.
  std::vector<uint32_t> PidsWithoutJitdump() const;

 private:
  struct Pending {
    uint64_t time;
    uint64_t sequence;
    perf::OwnedRecord record;
  };
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const {
      return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
  };
  // What every MMAP2 made from one dump shares.
  struct DumpContext {
    std::string dir;
    uint32_t file_pid = 0;  // the pid in the .so names
    perf::SampleFormat format;
    perf::SampleId sample_id;  // from the marker; pid, tid, time replaced
    bool arch_timestamp = false;
    elf::JitElfTarget target;
    std::string dump_path;
    std::string merged_path;
    // For a process in a pid namespace: its pid outside, which replaces
    // the namespace pids and tids of the dump's records.
    std::optional<uint32_t> outer_pid;
    // Outputs of the run claimed in `dir`: no generated file may be one.
    std::vector<std::string> claimed_names;
  };
  // A marker's dump, found.
  struct FoundDump {
    std::string path;
    bool namespaced = false;
  };
  // What an MMAP2 says of the file it maps.
  struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
  };

  // The DEBUG_INFO and UNWINDING_INFO that came before a CODE_LOAD (they
  // describe the load that follows them).
  struct LoadInfo {
    std::optional<DebugInfo> debug;
    std::optional<UnwindingInfo> unwinding;
    uint64_t unwinding_offset = 0;  // of the UNWINDING_INFO record in the dump
  };
  // The file that holds a load's code.
  struct CodeFile {
    std::string path;
    uint64_t pgoff = 0;                // where the code starts in the file
    std::optional<size_t> file_index;  // in file_ids_; nullopt: the merged file
  };
  // One MMAP2 to inject, before the file it points at is known to exist.
  struct PlannedMmap {
    uint64_t time;
    uint32_t pid, tid;
    uint64_t start, len;
    uint64_t code_index;
  };
  // What the records of a dump became: the file of each code_index (the
  // last load of it wins) and the MMAP2s to make for its loads and moves.
  struct DumpCode {
    absl::flat_hash_map<uint64_t, CodeFile> files;
    std::vector<PlannedMmap> planned;
  };

  // Refuses a generated file `name` in the context's folder that is an
  // output of the run.
  static absl::Status CheckNotAnOutput(const DumpContext& context, const std::string& name);
  absl::Status ProcessMapping(const perf::Record& record, absl::string_view filename, uint32_t pid,
                              pipeline::RecordSink& out);
  // The readable dump the marker names, nullopt (with a warning) if none is
  // there; an error when one cannot be looked at (EACCES, EIO, EMFILE).
  absl::StatusOr<std::optional<FoundDump>> FindDump(const perf::Record& marker,
                                                    absl::string_view filename, uint32_t pid,
                                                    uint32_t name_pid);
  // Reads the dump, writes its files and queues its MMAP2s; `pid` is the
  // marker's (its namespace's outer pid when dump.namespaced).
  absl::Status ProcessDump(const perf::Record& marker, const FoundDump& dump, uint32_t pid);
  // Opens the dump and checks that its timestamps can be put on perf's clock.
  absl::StatusOr<std::unique_ptr<JitDumpReader>> OpenDump(const std::string& path) const;
  absl::Status CheckClock(const std::string& path) const;
  absl::StatusOr<DumpContext> ContextFor(const perf::Record& marker, const JitDumpReader& reader,
                                         const FoundDump& dump, uint32_t pid) const;
  // With `merge`: the dump's jitted-<pid>-merged.so, being written.
  absl::StatusOr<std::unique_ptr<elf::MergedJitElfWriter>> OpenMergedFile(
      const DumpContext& context) const;
  // Reads the dump's records: writes each load's file (or adds it to
  // `merged`) and plans the MMAP2s. All files are written when it returns.
  absl::StatusOr<DumpCode> WriteDumpCode(const DumpContext& context, JitDumpReader& reader,
                                         elf::MergedJitElfWriter* merged);
  // Writes the load's ELF file (its index in file_ids_ is where the file's
  // id will be once written: FlushFiles) or adds it to `merged`.
  absl::StatusOr<CodeFile> WriteLoad(const DumpContext& context, const CodeLoad& load,
                                     const LoadInfo& info, elf::MergedJitElfWriter* merged);
  // Completes the merged file, if it holds any function; its id.
  absl::StatusOr<FileId> FinishMergedFile(const DumpContext& context,
                                          elf::MergedJitElfWriter& merged);
  // Queues the planned MMAP2s, pointed at the files of their code.
  absl::Status QueueMmaps(const DumpContext& context, const std::string& dump_path,
                          const DumpCode& code, FileId merged_id);
  absl::Status QueueMmap2(const DumpContext& context, uint64_t timestamp, uint32_t pid,
                          uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff, FileId file,
                          const std::string& filename);
  JitFileWriter& FileWriter();
  // Writes the files still queued; `status` (when not OK) unless that fails
  // first, as it would have one file at a time.
  absl::Status FlushFiles(absl::Status status = absl::OkStatus());
  absl::Status EmitPendingUpTo(uint64_t time, pipeline::RecordSink& out);
  void AddBuildIdEntries(perf::FeatureSet& features) const;
  absl::Status StoreInBuildIdCache();

  JitToolOptions options_;
  perf::EventList events_;
  std::optional<perf::TimeConversion> time_conversion_;
  absl::flat_hash_set<uint32_t> processed_pids_;
  absl::flat_hash_set<uint32_t> anonymous_code_pids_;  // every pid with a //anon mapping
  absl::flat_hash_set<std::string> processed_dumps_;
  std::priority_queue<Pending, std::vector<Pending>, Later> pending_;
  uint64_t sequence_ = 0;
  std::vector<base::PendingFile> made_;  // merged files, build-id cache entries
  // Every file written, with its build id (a path may repeat: the last wins).
  std::vector<std::pair<std::string, base::BuildId>> written_;
  std::unique_ptr<JitFileWriter> file_writer_;  // made at the first file
  // The ids of the current dump's per-function files, filled in by the
  // file writer as it writes them (WriteDumpCode clears it).
  std::vector<FileId> file_ids_;
  std::vector<elf::JitLine> lines_buffer_;  // WriteLoad's, kept for its allocation
  base::WarningSink& warnings_;
  JitToolStats stats_;
};

}  // namespace perftk::jit

#endif  // PERFTK_JIT_JIT_TOOL_H_

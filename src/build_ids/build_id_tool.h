// Adds the build ids of the DSOs a recording uses, as `perf inject -b` (the
// DSOs that samples hit) or `perf inject --buildid-all` (every mapped DSO)
// do, so that a recording read elsewhere finds its binaries by id.
//
// A HEADER_BUILD_ID record goes out just before the first record that needs
// the DSO's id (the first sample in it, or with kAll its MMAP), so that a
// reader of a pipe knows the id before it symbolizes; a file writer gathers
// these records into the BUILD_ID feature. A DSO the input names already
// (its BUILD_ID feature, or HEADER_BUILD_ID records) is left as it is.
//
// Where an id comes from, first found first:
//  1. the MMAP2 record itself (`perf record --buildid-mmap`);
//  2. the file at the recorded path (under `symfs`), when it is still the
//     file the recording mapped: an MMAP2's device and inode must match,
//     and the file must not have been modified since the recording ended
//     (its mtime, where that end is known), or it was rewritten in place;
//  3. for the kernel and its modules, /sys/kernel/notes and
//     /sys/module/NAME/notes/.note.gnu.build-id, and for [vdso] this
//     process's own vDSO, when the recording was made on this machine (its
//     host name and kernel release are this one's).
// A DSO with a file but no id is named in a warning (and why: missing,
// replaced since the recording, no build-id note, not readable by this
// user); a file that cannot be looked at for another reason (EIO, EMFILE)
// ends the run with that error. Anonymous memory, heap,
// stack and the like have none and are passed over, and so are data
// mappings (not executable) with kAll. The names come from the recording
// and follow base/recorded_name.h: one with a '..' component is refused,
// a file's type is checked before it is opened, notes reads are capped.
#ifndef PERFTK_BUILD_IDS_BUILD_ID_TOOL_H_
#define PERFTK_BUILD_IDS_BUILD_ID_TOOL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "base/build_id.h"
#include "base/warnings.h"
#include "machine/machines.h"
#include "perf/header.h"
#include "perf/sample.h"
#include "pipeline/tool.h"

namespace perftk::build_ids {

enum class BuildIdScope {
  kHit,  // the DSOs samples hit (their ip), as perf inject -b
  kAll,  // every mapped DSO, as perf inject --buildid-all
};

struct BuildIdSettings {
  BuildIdScope scope = BuildIdScope::kHit;
  std::string symfs;              // prefix of every recorded path ("": none)
  std::string sys_root = "/sys";  // where the kernel's notes are read (tests change it)
  // Add nothing when the input names build ids already (aslr's default).
  bool only_without_ids = false;
  // When the recording ended, where known (a recording file's mtime), in
  // ns since the epoch; 0: unknown. A file modified after it (its mtime) is
  // not the file recorded, even at the recorded inode: rewritten in place.
  int64_t recording_ended_ns = 0;
};

struct BuildIdStats {
  uint64_t added = 0;    // HEADER_BUILD_ID records emitted
  uint64_t had = 0;      // DSOs the input named already
  uint64_t without = 0;  // DSOs with a file that got none (each warned about)
};

class BuildIdTool : public pipeline::Tool {
 public:
  // One warning goes to `warnings` per DSO left without an id, when it is
  // met; `warnings` must outlive the tool.
  BuildIdTool(BuildIdSettings settings, base::WarningSink& warnings);

  // It finds the DSOs in the pipeline's model, perf's way.
  std::optional<pipeline::ModelPolicy> model_policy() const override {
    return pipeline::ModelPolicy{};
  }
  absl::Status Begin(perf::Header& header) override;
  absl::Status Process(const perf::Record& record, pipeline::RecordSink& out) override;
  bool PassesAllThrough() const override { return off_; }

  const BuildIdStats& stats() const { return stats_; }

 private:
  // Emits the DSO's HEADER_BUILD_ID record if it is the first time it is met
  // and an id is found.
  absl::Status Cover(const machine::Dso& dso, pipeline::RecordSink& out);
  // The id of `dso`, or an empty one with the reason in `why` (none when
  // there is nothing to warn about); an error (EIO, EMFILE: not the
  // file's fault) ends the run.
  absl::StatusOr<base::BuildId> FindId(const machine::Dso& dso, std::string& why) const;
  base::BuildId KernelId(const machine::Dso& dso, std::string& why) const;
  absl::Status CoverSampleDso(const perf::Record& record, pipeline::RecordSink& out);

  BuildIdSettings settings_;
  perf::EventList events_;
  bool off_ = false;                              // only_without_ids, and the input has ids
  bool recorded_here_ = false;                    // host name and kernel release are this machine's
  absl::flat_hash_set<std::string> named_;        // filenames the input has ids for
  absl::flat_hash_set<const machine::Dso*> met_;  // DSOs looked at already
  perf::Sample sample_;
  BuildIdStats stats_;
  base::WarningSink& warnings_;
};

}  // namespace perftk::build_ids

#endif  // PERFTK_BUILD_IDS_BUILD_ID_TOOL_H_

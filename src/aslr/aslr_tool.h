// The `perftk aslr` rewrite: a recording that no longer reveals where the
// recorded machine placed its processes' and its kernel's memory, while perf
// symbolizes it exactly as before.
//
// Records are expected in timestamp order (PipelineOptions::ordered), so a
// mapping is known before the samples that hit it. The tool replays MMAP,
// MMAP2, COMM, FORK, EXIT and KSYMBOL into a private model of the original
// address spaces, places every mapping in a remapped space (RemapTable) and
// rewrites every address it finds: mapping starts (and pgoffs that hold
// addresses), sample ip/addr, callchains (space switched by the
// PERF_CONTEXT_* markers), branch stacks, KSYMBOL and deferred callchains.
//
// What cannot be remapped is removed: register dumps, user stack copies,
// tracepoint raw payloads, physical addresses and AUX samples leave the
// sample_type (the samples stay); AUX/AUXTRACE*/TEXT_POKE records and
// record types perftk does not know are dropped; bp_addr and kprobe/uprobe
// config1/config2 are cleared in the attrs, with the event names that show
// them; BPF_PROG_INFO and unknown feature sections are dropped; the kernel
// symbol table and printk addresses leave the tracing data. Build ids, file
// names and the command line are kept (the command line can be stripped).
#ifndef PERFTK_ASLR_ASLR_TOOL_H_
#define PERFTK_ASLR_ASLR_TOOL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "aslr/recent_translations.h"
#include "aslr/remap_table.h"
#include "machine/machines.h"
#include "perf/header.h"
#include "perf/sample.h"
#include "pipeline/tool.h"

namespace perftk::aslr {

struct AslrSettings {
  bool strip_cmdline = false;
  bool strip_hostname = false;
  uint64_t page_size = 4096;
};

struct AslrStats {
  uint64_t records = 0;
  uint64_t samples = 0;
  uint64_t mappings = 0;
  uint64_t addresses = 0;                   // addresses rewritten, all kinds
  uint64_t unknown_addresses = 0;           // of which no mapping covered
  std::map<std::string, uint64_t> dropped;  // record type name -> count
  std::vector<std::string> removed;         // sample fields, attr fields, features (with why)
};

class AslrTool : public pipeline::Tool {
 public:
  explicit AslrTool(AslrSettings settings = {});

  // Mappings move by the pipeline's model of the input.
  std::optional<pipeline::ModelPolicy> model_policy() const override {
    return pipeline::ModelPolicy{};
  }
  // Forgets the translations of the model as it was; a KSYMBOL that
  // unregisters is translated while its symbol is still there.
  absl::Status BeforeModelChange(const perf::Record& record, pipeline::RecordSink& out) override;
  absl::Status Begin(perf::Header& header) override;
  absl::Status Process(const perf::Record& record, pipeline::RecordSink& out) override;

  const AslrStats& stats() const { return stats_; }
  size_t unknown_pages() const { return table_.unknown_pages(); }

 private:
  absl::Status ProcessOne(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status RewriteMmap(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status RewriteKsymbol(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status RewriteSample(const perf::Record& record, pipeline::RecordSink& out);
  // Writes the rewritten sample_ of `record` (decoded in format `in`, its
  // address fields `at`) in `format`: over the record's own address fields
  // when the layout is unchanged, else encoded anew.
  absl::Status EmitSample(const perf::Record& record, const perf::SampleFormat& in,
                          const perf::SampleFormat& format, const perf::SampleFieldOffsets& at,
                          pipeline::RecordSink& out);
  absl::Status RewriteDeferredCallchain(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status RewriteHeaderAttr(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status RewriteHeaderFeature(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status RewriteTracingData(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status RewriteEventUpdate(const perf::Record& record, pipeline::RecordSink& out);
  absl::Status FollowTask(const perf::Record& record, pipeline::RecordSink& out);

  // The remapped value of addr as seen by pid in the space `cpumode` names;
  // tries the other space (user/kernel) before calling it unknown.
  uint64_t Translate(int32_t pid, uint16_t cpumode, uint64_t addr);
  // Translate past its caches: the mapping looked up, or a substitute.
  uint64_t TranslateUncached(int32_t pid, uint16_t cpumode, uint64_t addr);
  RemapTable::Space SpaceOf(const machine::Machine* machine, int32_t pid, uint16_t cpumode) const;

  // Applies the tool's policy to an attr in place.
  void StripAttr(perf::EventAttr& attr) const;
  // Applies the tool's policy to a feature section in place: OK to keep it,
  // else why it is dropped (an option, an address it may hold, the scrub's
  // error), which the summary names.
  absl::Status ScrubFeature(int feature, std::vector<std::byte>& section);
  // "feature TRACING_DATA (why)" in the summary's removed list.
  void NoteRemovedFeature(int feature, const absl::Status& why);
  absl::Status ScrubEventDesc(std::vector<std::byte>& section) const;

  absl::Status Emit(const perf::Record& original, base::Bytes body, pipeline::RecordSink& out);
  void Drop(const perf::Record& record);
  absl::Status Fail(const perf::Record& record, const absl::Status& status) const;

  AslrSettings settings_;
  perf::EventList input_events_;                   // as recorded: decodes the input
  perf::EventList output_events_;                  // stripped: encodes the output
  absl::flat_hash_set<uint32_t> probe_pmu_types_;  // kprobe, uprobe
  RemapTable table_;
  RecentTranslations recent_;  // cleared by every record that changes the model
  // Pages of addresses found in no mapping, with their substitutes: the
  // same few (the ends of frame-pointer chains) come back sample after
  // sample. Cleared with recent_: a new mapping can cover them.
  RecentTranslations recent_unknown_;
  AslrStats stats_;
  // Where the KSYMBOL that unregisters, met by BeforeModelChange, moves.
  std::optional<uint64_t> unregistered_address_;
  std::vector<std::byte> body_;
  perf::Sample sample_;            // reused by every SAMPLE
  std::vector<std::byte> record_;  // a rewritten SAMPLE, header first
};

// Names whose text shows an address (breakpoint events: "mem:0x404040:w")
// get the address cleared, as the attr's bp_addr is.
std::string ScrubEventName(const std::string& name);

}  // namespace perftk::aslr

#endif  // PERFTK_ASLR_ASLR_TOOL_H_

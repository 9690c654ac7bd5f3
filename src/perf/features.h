// Typed access to the feature sections of a recording, and their conversion
// from the other byte order. Sections are kept as bytes (FeatureSet); these
// functions read the ones perftk needs to understand.
#ifndef PERFTK_PERF_FEATURES_H_
#define PERFTK_PERF_FEATURES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/build_id.h"
#include "perf/header.h"

namespace perftk::perf {

// The name perf uses for a feature bit, e.g. "hostname", "build_id".
std::string FeatureName(int feature);

// HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID: one string.
absl::StatusOr<std::string> ReadStringFeature(const FeatureSet& features, int feature);

struct NrCpus {
  uint32_t online = 0;
  uint32_t available = 0;
};
absl::StatusOr<NrCpus> ReadNrCpus(const FeatureSet& features);

absl::StatusOr<std::vector<std::string>> ReadCmdline(const FeatureSet& features);

struct BuildIdEntry {
  int32_t pid = 0;
  uint16_t misc = 0;  // cpumode of the dso
  base::BuildId build_id;
  std::string filename;
};
absl::StatusOr<std::vector<BuildIdEntry>> ReadBuildIds(const FeatureSet& features);
// The same as a map: recorded file name -> its id (a name listed twice
// keeps its last id), as the readers of binaries look ids up.
using BuildIdsByPath = std::map<std::string, base::BuildId>;
absl::StatusOr<BuildIdsByPath> ReadBuildIdsByPath(const FeatureSet& features);
// Appends `entry` to a BUILD_ID feature section as perf writes it: the id
// with its size (PERF_RECORD_MISC_BUILD_ID_SIZE set in
// misc), the file name padded to 64 bytes. The header's type is 0, as in
// a file's section (the writer sets HEADER_BUILD_ID for a pipe).
void AppendBuildIdEntry(const BuildIdEntry& entry, std::vector<std::byte>& section);

struct AuxtraceIndexEntry {
  uint64_t offset = 0;  // file offset of a PERF_RECORD_AUXTRACE
  uint64_t size = 0;    // of the record without its payload (perf checks it)
};
// perf writes a leading count word; simpleperf does not. Both are accepted.
absl::StatusOr<std::vector<AuxtraceIndexEntry>> ReadAuxtraceIndex(const FeatureSet& features);
// The AUXTRACE section in perf's layout: the count, then the entries.
std::vector<std::byte> EncodeAuxtraceIndex(const std::vector<AuxtraceIndexEntry>& entries);

struct EventDescEntry {
  std::vector<std::byte> attr;  // the attr copy, attr_size bytes
  std::string name;
  // The name's field in the section (NUL-padded); 0 when unknown. The
  // encoder keeps it when the name fits, else pads as perf does (to 64).
  uint32_t name_size = 0;
  std::vector<uint64_t> ids;
};
// EVENT_DESC: the size of every attr copy, then each event's entry.
struct EventDesc {
  uint32_t attr_size = 0;
  std::vector<EventDescEntry> entries;
};
absl::StatusOr<EventDesc> ParseEventDesc(base::Bytes section);
absl::StatusOr<std::vector<EventDescEntry>> ReadEventDesc(const FeatureSet& features);
// The section perf writes for `desc`; each attr is cut or zero-padded to
// attr_size.
std::vector<std::byte> EncodeEventDesc(const EventDesc& desc);

// PMU_MAPPINGS: PMU type number -> name ("cpu", "software", "kprobe", ...).
absl::StatusOr<std::vector<std::pair<uint32_t, std::string>>> ReadPmuMappings(
    const FeatureSet& features);

// Converts a section written in the other byte order to native order.
// Returns Unimplemented for sections whose layout perftk does not convert;
// the reader drops those with a warning rather than pass on foreign bytes.
absl::Status SwapFeatureToNative(int feature, std::vector<std::byte>& section);

// A perf "string" as feature sections store it: u32 length (NUL-padded to 64
// bytes), then the bytes.
void AppendFeatureString(std::vector<std::byte>& out, absl::string_view text);

}  // namespace perftk::perf

#endif  // PERFTK_PERF_FEATURES_H_

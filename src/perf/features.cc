#include "perf/features.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "perf/swap.h"

namespace perftk::perf {

std::string FeatureName(int feature) {
  static constexpr const char* kNames[] = {
      "reserved",        "tracing_data", "build_id",       "hostname",     "osrelease",
      "version",         "arch",         "nrcpus",         "cpudesc",      "cpuid",
      "total_mem",       "cmdline",      "event_desc",     "cpu_topology", "numa_topology",
      "branch_stack",    "pmu_mappings", "group_desc",     "auxtrace",     "stat",
      "cache",           "sample_time",  "mem_topology",   "clockid",      "dir_format",
      "bpf_prog_info",   "bpf_btf",      "compressed",     "cpu_pmu_caps", "clock_data",
      "hybrid_topology", "pmu_caps",     "cpu_domain_info"};
  if (feature >= 0 && feature < static_cast<int>(std::size(kNames))) return kNames[feature];
  return absl::StrCat("feature_", feature);
}

namespace {

absl::StatusOr<base::Bytes> Section(const FeatureSet& features, int feature) {
  auto it = features.find(feature);
  if (it == features.end()) {
    return absl::NotFoundError(
        absl::StrCat("the recording has no ", FeatureName(feature), " feature section"));
  }
  return base::Bytes(it->second);
}

absl::Status Malformed(int feature, absl::string_view what) {
  return absl::DataLossError(
      absl::StrCat(FeatureName(feature), " feature section is malformed: ", what));
}

bool ReadString(base::ByteCursor& in, std::string& out) {
  uint32_t len = in.Read<uint32_t>();
  base::Bytes bytes = in.ReadBytes(len);
  if (!in.ok()) return false;
  const char* text = reinterpret_cast<const char*>(bytes.data());
  out.assign(text, strnlen(text, bytes.size()));
  return true;
}

}  // namespace

absl::StatusOr<std::string> ReadStringFeature(const FeatureSet& features, int feature) {
  absl::StatusOr<base::Bytes> section = Section(features, feature);
  if (!section.ok()) return section.status();
  base::ByteCursor in(*section);
  std::string text;
  if (!ReadString(in, text)) return Malformed(feature, "string runs past the section");
  return text;
}

absl::StatusOr<NrCpus> ReadNrCpus(const FeatureSet& features) {
  absl::StatusOr<base::Bytes> section = Section(features, HEADER_NRCPUS);
  if (!section.ok()) return section.status();
  base::ByteCursor in(*section);
  NrCpus n;
  n.online = in.Read<uint32_t>();
  n.available = in.Read<uint32_t>();
  if (!in.ok()) return Malformed(HEADER_NRCPUS, "shorter than 8 bytes");
  return n;
}

absl::StatusOr<std::vector<std::string>> ReadCmdline(const FeatureSet& features) {
  absl::StatusOr<base::Bytes> section = Section(features, HEADER_CMDLINE);
  if (!section.ok()) return section.status();
  base::ByteCursor in(*section);
  uint32_t nr = in.Read<uint32_t>();
  if (!in.ok() || nr > in.remaining() / 4) return Malformed(HEADER_CMDLINE, "impossible count");
  std::vector<std::string> args(nr);
  for (auto& arg : args) {
    if (!ReadString(in, arg)) return Malformed(HEADER_CMDLINE, "string runs past the section");
  }
  return args;
}

void AppendBuildIdEntry(const BuildIdEntry& entry, std::vector<std::byte>& section) {
  constexpr size_t kIdField = base::BuildId::kMaxSize, kNameAlign = 64;
  const size_t id_size = entry.build_id.size();
  const size_t name_size = base::AlignUp(entry.filename.size() + 1, kNameAlign);
  base::Append<uint32_t>(section, 0);  // type: unused in the feature section
  base::Append<uint16_t>(section, entry.misc | PERF_RECORD_MISC_BUILD_ID_SIZE);
  base::Append<uint16_t>(section, static_cast<uint16_t>(kRecordHeaderSize + 4 + 24 + name_size));
  base::Append<int32_t>(section, entry.pid);
  base::AppendBytes(section, entry.build_id.bytes());
  section.resize(section.size() + kIdField - id_size, std::byte{0});
  base::Append<uint8_t>(section, static_cast<uint8_t>(id_size));
  section.resize(section.size() + 3, std::byte{0});  // padding of the 24-byte id field
  base::AppendBytes(section, base::AsBytes(entry.filename.data(), entry.filename.size()));
  section.resize(section.size() + name_size - entry.filename.size(), std::byte{0});
}

absl::StatusOr<std::vector<BuildIdEntry>> ReadBuildIds(const FeatureSet& features) {
  absl::StatusOr<base::Bytes> section = Section(features, HEADER_BUILD_ID);
  if (!section.ok()) return section.status();
  std::vector<BuildIdEntry> entries;
  size_t pos = 0;
  while (pos + kRecordHeaderSize <= section->size()) {
    uint16_t size = base::Load<uint16_t>(section->data() + pos + 6);
    if (pos + size > section->size()) size = 0;  // refused below
    absl::StatusOr<HeaderBuildIdRecord> view =
        HeaderBuildIdRecord::From(Record(section->subspan(pos, size), pos));
    if (size < kRecordHeaderSize || !view.ok()) {
      return Malformed(HEADER_BUILD_ID, absl::StrFormat("entry at +%u has size %u", pos, size));
    }
    BuildIdEntry e;
    e.misc = view->record().misc();
    e.pid = view->pid();
    e.build_id = base::BuildId::FromBytes(view->build_id());
    e.filename = std::string(view->filename());
    entries.push_back(std::move(e));
    pos += size;
  }
  return entries;
}

absl::StatusOr<BuildIdsByPath> ReadBuildIdsByPath(const FeatureSet& features) {
  absl::StatusOr<std::vector<BuildIdEntry>> entries = ReadBuildIds(features);
  if (!entries.ok()) return entries.status();
  BuildIdsByPath ids;
  for (const BuildIdEntry& entry : *entries) ids[entry.filename] = entry.build_id;
  return ids;
}

absl::StatusOr<std::vector<AuxtraceIndexEntry>> ReadAuxtraceIndex(const FeatureSet& features) {
  absl::StatusOr<base::Bytes> section = Section(features, HEADER_AUXTRACE);
  if (!section.ok()) return section.status();
  base::ByteCursor in(*section);
  size_t words = section->size() / 8;
  // With a count word the section is 8 + 16 * count bytes; without it, 16 * n.
  uint64_t first = words > 0 ? base::Load<uint64_t>(section->data()) : 0;
  if (words % 2 == 1 && first == words / 2) in.Read<uint64_t>();
  std::vector<AuxtraceIndexEntry> entries;
  while (in.remaining() >= 16) {
    AuxtraceIndexEntry e;
    e.offset = in.Read<uint64_t>();
    e.size = in.Read<uint64_t>();
    entries.push_back(e);
  }
  return entries;
}

std::vector<std::byte> EncodeAuxtraceIndex(const std::vector<AuxtraceIndexEntry>& entries) {
  std::vector<std::byte> section;
  base::Append(section, static_cast<uint64_t>(entries.size()));
  for (const AuxtraceIndexEntry& e : entries) {
    base::Append(section, e.offset);
    base::Append(section, e.size);
  }
  return section;
}

absl::StatusOr<EventDesc> ParseEventDesc(base::Bytes section) {
  base::ByteCursor in(section);
  EventDesc desc;
  uint32_t nr = in.Read<uint32_t>();
  desc.attr_size = in.Read<uint32_t>();
  if (!in.ok() || desc.attr_size == 0 || nr > in.remaining() / desc.attr_size) {
    return Malformed(HEADER_EVENT_DESC, "impossible event count or attr size");
  }
  desc.entries.resize(nr);
  for (EventDescEntry& e : desc.entries) {
    base::Bytes attr = in.ReadBytes(desc.attr_size);
    uint32_t nr_ids = in.Read<uint32_t>();
    e.name_size = in.Read<uint32_t>();
    base::Bytes name = in.ReadBytes(e.name_size);
    if (!in.ok() || nr_ids > in.remaining() / 8) {
      return Malformed(HEADER_EVENT_DESC, "entry runs past the section");
    }
    const char* text = reinterpret_cast<const char*>(name.data());
    e.name.assign(text, strnlen(text, name.size()));
    e.attr.assign(attr.begin(), attr.end());
    e.ids.resize(nr_ids);
    for (uint64_t& id : e.ids) id = in.Read<uint64_t>();
  }
  return desc;
}

absl::StatusOr<std::vector<EventDescEntry>> ReadEventDesc(const FeatureSet& features) {
  absl::StatusOr<base::Bytes> section = Section(features, HEADER_EVENT_DESC);
  if (!section.ok()) return section.status();
  absl::StatusOr<EventDesc> desc = ParseEventDesc(*section);
  if (!desc.ok()) return desc.status();
  return std::move(desc->entries);
}

std::vector<std::byte> EncodeEventDesc(const EventDesc& desc) {
  std::vector<std::byte> section;
  base::Append(section, static_cast<uint32_t>(desc.entries.size()));
  base::Append(section, desc.attr_size);
  for (const EventDescEntry& e : desc.entries) {
    size_t at = section.size();
    base::AppendBytes(section,
                      base::Bytes(e.attr).first(std::min<size_t>(e.attr.size(), desc.attr_size)));
    section.resize(at + desc.attr_size, std::byte{0});
    base::Append(section, static_cast<uint32_t>(e.ids.size()));
    if (e.name.size() <= e.name_size) {
      base::Append(section, e.name_size);
      at = section.size();
      base::AppendBytes(section, base::AsBytes(e.name.data(), e.name.size()));
      section.resize(at + e.name_size, std::byte{0});
    } else {
      AppendFeatureString(section, e.name);
    }
    for (uint64_t id : e.ids) base::Append(section, id);
  }
  return section;
}

absl::StatusOr<std::vector<std::pair<uint32_t, std::string>>> ReadPmuMappings(
    const FeatureSet& features) {
  absl::StatusOr<base::Bytes> section = Section(features, HEADER_PMU_MAPPINGS);
  if (!section.ok()) return section.status();
  base::ByteCursor in(*section);
  uint32_t nr = in.Read<uint32_t>();
  if (!in.ok() || nr > in.remaining() / 8)
    return Malformed(HEADER_PMU_MAPPINGS, "impossible count");
  std::vector<std::pair<uint32_t, std::string>> pmus(nr);
  for (auto& [type, name] : pmus) {
    type = in.Read<uint32_t>();
    if (!ReadString(in, name))
      return Malformed(HEADER_PMU_MAPPINGS, "string runs past the section");
  }
  return pmus;
}

void AppendFeatureString(std::vector<std::byte>& out, absl::string_view text) {
  uint32_t len = static_cast<uint32_t>(base::AlignUp(text.size() + 1, 64));
  base::Append(out, len);
  size_t at = out.size();
  out.resize(at + len);
  std::memcpy(out.data() + at, text.data(), text.size());
}

namespace {

// Swaps `count` perf strings (u32 length + bytes) starting at `pos`.
bool SwapStrings(std::vector<std::byte>& s, size_t& pos, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    if (pos + 4 > s.size()) return false;
    base::SwapInPlace<uint32_t>(s.data() + pos);
    uint32_t len = base::Load<uint32_t>(s.data() + pos);
    pos += 4;
    if (len > s.size() - pos) return false;
    pos += len;
  }
  return true;
}

}  // namespace

absl::Status SwapFeatureToNative(int feature, std::vector<std::byte>& s) {
  size_t pos = 0;
  switch (feature) {
    case HEADER_HOSTNAME:
    case HEADER_OSRELEASE:
    case HEADER_VERSION:
    case HEADER_ARCH:
    case HEADER_CPUDESC:
    case HEADER_CPUID:
      if (!SwapStrings(s, pos, 1)) return Malformed(feature, "string runs past the section");
      return absl::OkStatus();
    case HEADER_NRCPUS:
      base::SwapArrayInPlace<uint32_t>(s.data(), s.size() / 4);
      return absl::OkStatus();
    case HEADER_TOTAL_MEM:
    case HEADER_SAMPLE_TIME:
    case HEADER_CLOCKID:
    case HEADER_DIR_FORMAT:
    case HEADER_AUXTRACE:
      base::SwapArrayInPlace<uint64_t>(s.data(), s.size() / 8);
      return absl::OkStatus();
    case HEADER_CMDLINE: {
      if (s.size() < 4) return Malformed(feature, "shorter than its count");
      base::SwapInPlace<uint32_t>(s.data());
      pos = 4;
      if (!SwapStrings(s, pos, base::Load<uint32_t>(s.data()))) {
        return Malformed(feature, "string runs past the section");
      }
      return absl::OkStatus();
    }
    case HEADER_BUILD_ID:
      while (pos + kRecordHeaderSize <= s.size()) {
        SwapRecordHeader(s.data() + pos);
        uint16_t size = base::Load<uint16_t>(s.data() + pos + 6);
        if (size < 12 || pos + size > s.size()) return Malformed(feature, "entry size");
        base::SwapInPlace<uint32_t>(s.data() + pos + 8);
        pos += size;
      }
      return absl::OkStatus();
    default:
      return absl::UnimplementedError(
          absl::StrCat("no byte-order conversion for the ", FeatureName(feature), " section"));
  }
}

}  // namespace perftk::perf

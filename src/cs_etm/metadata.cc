#include "cs_etm/metadata.h"

#include "absl/strings/str_format.h"

namespace perftk::cs_etm {
namespace {

constexpr size_t kHeaderWords = 3;
// Parameters a version-0 block has, and the minimum a decoder needs.
constexpr size_t kEtmV3Params = 4;
constexpr size_t kEtmV4Params = 7;
constexpr size_t kEteParams = 8;

constexpr uint32_t kTrcConfigCtxtId = 1u << 6;
constexpr uint32_t kTrcConfigVmid = 1u << 7;
constexpr uint32_t kTrcConfigVmidOpt = 1u << 15;
constexpr uint32_t kEtmCrCtxtId = 1u << 14;

// A PTM (PFT) reports architecture version 3 in ETMIDR bits 11:8; perf tests
// both bits of 0x300.
constexpr uint32_t kEtmIdrPtmVersion = 0x300;
bool IsPtm(uint32_t etmidr) { return (etmidr & kEtmIdrPtmVersion) == kEtmIdrPtmVersion; }

absl::Status BlockError(size_t block, size_t word, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "cs_etm AUXTRACE_INFO: CPU block %d (private word %d): %s", block, word, what));
}

void FillParams(TraceSource& source, std::span<const uint64_t> p) {
  auto w = [&](size_t i) { return i < p.size() ? static_cast<uint32_t>(p[i]) : 0u; };
  switch (source.protocol) {
    case TraceProtocol::kEtmV3:
    case TraceProtocol::kPtm:
      source.etmcr = w(0);
      source.etmtraceidr = w(1);
      source.etmccer = w(2);
      source.etmidr = w(3);
      source.trace_id_valid = p.size() < 2 || (p[1] & kTraceIdUnusedFlag) == 0;
      source.protocol = IsPtm(source.etmidr) ? TraceProtocol::kPtm : TraceProtocol::kEtmV3;
      break;
    case TraceProtocol::kEtmV4:
    case TraceProtocol::kEte:
      source.trcconfigr = w(0);
      source.trctraceidr = w(1);
      source.trcidr0 = w(2);
      source.trcidr1 = w(3);
      source.trcidr2 = w(4);
      source.trcidr8 = w(5);
      source.trcauthstatus = w(6);
      if (source.protocol == TraceProtocol::kEte) source.trcdevarch = w(7);
      source.trace_id_valid = p.size() < 2 || (p[1] & kTraceIdUnusedFlag) == 0;
      break;
  }
}

}  // namespace

uint8_t TraceSource::trace_id() const {
  bool v3 = protocol == TraceProtocol::kEtmV3 || protocol == TraceProtocol::kPtm;
  return static_cast<uint8_t>((v3 ? etmtraceidr : trctraceidr) & 0x7f);
}

PidFormat TraceSource::pid_format() const {
  if (protocol == TraceProtocol::kEtmV3 || protocol == TraceProtocol::kPtm) {
    return (etmcr & kEtmCrCtxtId) ? PidFormat::kCtxtId : PidFormat::kNone;
  }
  if (trcconfigr & (kTrcConfigVmid | kTrcConfigVmidOpt)) return PidFormat::kCtxtId2;
  if (trcconfigr & kTrcConfigCtxtId) return PidFormat::kCtxtId;
  return PidFormat::kNone;
}

const TraceSource* CsEtmInfo::FindCpu(uint32_t cpu) const {
  for (const TraceSource& source : sources) {
    if (source.cpu == cpu) return &source;
  }
  return nullptr;
}

absl::StatusOr<CsEtmInfo> ParseCsEtmInfo(std::span<const uint64_t> priv) {
  if (priv.size() < kHeaderWords) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cs_etm AUXTRACE_INFO: %d private words, the header alone needs %d",
                        priv.size(), kHeaderWords));
  }
  CsEtmInfo info;
  info.version = priv[0];
  if (info.version > 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cs_etm AUXTRACE_INFO: header version %d (perftk reads 0, 1 and 2)", info.version));
  }
  info.pmu_type = static_cast<uint32_t>(priv[1] >> 32);
  uint32_t nr_cpus = static_cast<uint32_t>(priv[1]);
  info.snapshot = priv[2] != 0;
  if (nr_cpus > priv.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cs_etm AUXTRACE_INFO: %d CPUs announced but only %d private words", nr_cpus, priv.size()));
  }
  size_t pos = kHeaderWords;
  for (uint32_t block = 0; block < nr_cpus; ++block) {
    size_t common = info.version == 0 ? 2 : 3;
    if (priv.size() - pos < common) return BlockError(block, pos, "truncated block header");
    TraceSource source;
    uint64_t magic = priv[pos];
    size_t known = 0;
    if (magic == kMagicEtmV3) {
      source.protocol = TraceProtocol::kEtmV3;
      known = kEtmV3Params;
    } else if (magic == kMagicEtmV4) {
      source.protocol = TraceProtocol::kEtmV4;
      known = kEtmV4Params;
    } else if (magic == kMagicEte) {
      if (info.version == 0) return BlockError(block, pos, "ETE metadata in a version 0 header");
      source.protocol = TraceProtocol::kEte;
      known = kEteParams;
    } else {
      return BlockError(block, pos, absl::StrFormat("unknown magic %#x", magic));
    }
    source.cpu = static_cast<uint32_t>(priv[pos + 1]);
    size_t count = known;
    if (info.version >= 1) {
      uint64_t declared = priv[pos + 2];
      if (declared < known) {
        return BlockError(
            block, pos,
            absl::StrFormat("%d trace parameters, at least %d needed", declared, known));
      }
      if (declared > priv.size() - pos - common) {
        return BlockError(block, pos,
                          absl::StrFormat("%d trace parameters run past the record", declared));
      }
      count = static_cast<size_t>(declared);
    } else if (priv.size() - pos - common < count) {
      return BlockError(block, pos, "truncated parameters");
    }
    FillParams(source, priv.subspan(pos + common, known));
    info.sources.push_back(source);
    pos += common + count;
  }
  return info;
}

}  // namespace perftk::cs_etm

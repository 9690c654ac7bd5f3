#include "cs_etm/etm4_packets.h"

#include <algorithm>

namespace perftk::cs_etm {
namespace {

using T = Etm4PacketType;

// A packet's payload starts after its header byte.
constexpr size_t kPayload = 1;

// Trace info: which of its sections are still to come.
constexpr uint8_t kInfoSection = 0x01;
constexpr uint8_t kKeySection = 0x02;
constexpr uint8_t kSpecSection = 0x04;
constexpr uint8_t kCycleSection = 0x08;
constexpr uint8_t kWindowSection = 0x10;
constexpr uint8_t kAllSections = 0x1f;
constexpr uint8_t kControlDone = 0x20;

bool IsOne(Etm4PacketType type, std::initializer_list<Etm4PacketType> of) {
  return std::find(of.begin(), of.end(), type) != of.end();
}

}  // namespace

Etm4Config Etm4Config::For(const TraceSource& source) {
  Etm4Config config;
  if (source.protocol == TraceProtocol::kEte) {
    config.major = static_cast<uint8_t>((source.trcdevarch >> 12) & 0xf);
    config.minor = static_cast<uint8_t>((source.trcdevarch >> 16) & 0xf);
  } else {
    config.major = static_cast<uint8_t>((source.trcidr1 >> 8) & 0xf);
    config.minor = static_cast<uint8_t>((source.trcidr1 >> 4) & 0xf);
  }
  const uint32_t idr0 = source.trcidr0;
  const uint32_t idr2 = source.trcidr2;
  const uint32_t configr = source.trcconfigr;
  config.cid_bytes = ((idr2 >> 5) & 0x1f) == 4 ? 4 : 0;
  // 16- and 32-bit VMIDs from ETMv4.1 on, and on every ETE (OpenCSD 1.3.3
  // compares the whole version, so ETE 1.0's minor 0 does not matter).
  const uint32_t vmid_size = (idr2 >> 10) & 0x1f;
  const bool wide_vmid = config.version() > 0x40;
  config.vmid_bytes = vmid_size == 1                ? 1
                      : wide_vmid && vmid_size == 2 ? 2
                      : wide_vmid && vmid_size == 4 ? 4
                                                    : 0;
  config.cc_bits = ((idr2 >> 25) & 0xf) + 12;
  const bool cycle_counting = (idr0 & 0x80) != 0;
  config.commit_opt1 = (idr0 & 0x20000000) != 0 && cycle_counting;
  config.max_spec_depth = source.trcidr8;
  config.q_elements = ((idr0 >> 15) & 0x3) != 0;
  const uint32_t cond = (configr >> 8) & 0x7;
  config.conditional_trace =
      (idr0 & 0x40) != 0 && (cond == 1 || cond == 2 || cond == 3 || cond == 7);
  const bool lsp0 = (configr & 0x6) != 0;
  config.data_trace = (idr0 & 0x18) == 0x18 && lsp0 && (configr & ((1u << 16) | (1u << 17))) != 0;
  config.wfi_wfe_branches = (idr2 & 0x80000000u) != 0 && config.version() >= 0x43;
  return config;
}

Etm4PacketParser::Etm4PacketParser(const Etm4Config& config) : config_(config) {
  BuildHeaderTable();
  Reset();
}

void Etm4PacketParser::BuildHeaderTable() {
  auto set = [&](int header, T type, Reading reading = Reading::kHeader) {
    headers_[header] = Header{type, reading, false, false};
  };
  auto reserved = [&](int header, T type) {
    headers_[header] = Header{type, Reading::kHeader, true};
  };
  auto for_config = [&](int header, T type) {
    headers_[header] = Header{type, Reading::kHeader, false, true};
  };
  for (int h = 0; h < 256; ++h) reserved(h, T::kReserved);
  const bool ete = config_.major >= 5;
  set(0x00, T::kExtension, Reading::kExtension);
  set(0x01, T::kTraceInfo, Reading::kTraceInfo);
  set(0x02, T::kTimestamp, Reading::kTimestamp);
  set(0x03, T::kTimestamp, Reading::kTimestamp);
  set(0x04, T::kTraceOn);
  if (config_.m_profile && config_.version() >= 0x42) {
    set(0x05, T::kFunctionReturn);
  } else {
    reserved(0x05, T::kFunctionReturn);
  }
  set(0x06, T::kException, Reading::kException);
  if (ete) {
    for_config(0x07, T::kExceptionReturn);
    set(0x0a, T::kTransactionStart);
    set(0x0b, T::kTransactionCommit);
    if (config_.minor >= 3) set(0x09, T::kIte, Reading::kIte);
  } else {
    set(0x07, T::kExceptionReturn);
  }
  for (int h = 0x0c; h <= 0x0f; ++h) {
    set(h, h >= 0x0e ? T::kCycleCountF1 : T::kCycleCountF2, Reading::kCycleCount);
  }
  for (int h = 0x10; h <= 0x1f; ++h) set(h, T::kCycleCountF3, Reading::kCycleCount);
  auto data_sync = [&](int first, int last, T type) {
    for (int h = first; h <= last; ++h) {
      if (config_.data_trace) {
        set(h, type);
      } else {
        for_config(h, type);
      }
    }
  };
  data_sync(0x20, 0x27, T::kNumberedDataSync);
  data_sync(0x28, 0x2c, T::kUnnumberedDataSync);
  set(0x2d, T::kCommit, Reading::kSpeculation);
  set(0x2e, T::kCancelF1, Reading::kSpeculation);
  set(0x2f, T::kCancelF1Mispredict, Reading::kSpeculation);
  for (int h = 0x30; h <= 0x33; ++h) set(h, T::kMispredict, Reading::kSpeculation);
  for (int h = 0x34; h <= 0x37; ++h) set(h, T::kCancelF2, Reading::kSpeculation);
  for (int h = 0x38; h <= 0x3f; ++h) set(h, T::kCancelF3, Reading::kSpeculation);
  // Conditional instruction trace: its packets are not parsed (the decoder
  // takes no such configuration); without it they are invalid here.
  auto conditional = [&](int first, int last, uint16_t type) {
    for (int h = first; h <= last; ++h) for_config(h, static_cast<T>(type));
  };
  conditional(0x40, 0x42, 0x40);  // COND_I_F2
  conditional(0x43, 0x43, 0x43);  // COND_FLUSH
  conditional(0x44, 0x46, 0x44);  // COND_RES_F4
  conditional(0x48, 0x4a, 0x48);  // COND_RES_F2
  conditional(0x4c, 0x4e, 0x48);
  conditional(0x50, 0x5f, 0x50);  // COND_RES_F3
  conditional(0x68, 0x6b, 0x68);  // COND_RES_F1
  conditional(0x6c, 0x6c, 0x6c);  // COND_I_F1
  conditional(0x6d, 0x6d, 0x6d);  // COND_I_F3
  conditional(0x6e, 0x6f, 0x68);
  if (config_.version() >= 0x43) set(0x70, T::kIgnore);
  for (int h = 0x71; h <= 0x7f; ++h) set(h, T::kEvent);
  set(0x80, T::kContext, Reading::kContext);
  set(0x81, T::kContext, Reading::kContext);
  set(0x82, T::kAddressContext32Is0, Reading::kAddressContext);
  set(0x83, T::kAddressContext32Is1, Reading::kAddressContext);
  set(0x85, T::kAddressContext64Is0, Reading::kAddressContext);
  set(0x86, T::kAddressContext64Is1, Reading::kAddressContext);
  if (config_.version() >= 0x46) set(0x88, T::kTimestampMarker);
  for (int h = 0x90; h <= 0x92; ++h) set(h, T::kAddressMatch);
  set(0x95, T::kShortAddressIs0, Reading::kShortAddress);
  set(0x96, T::kShortAddressIs1, Reading::kShortAddress);
  set(0x9a, T::kLongAddress32Is0, Reading::kLongAddress);
  set(0x9b, T::kLongAddress32Is1, Reading::kLongAddress);
  set(0x9d, T::kLongAddress64Is0, Reading::kLongAddress);
  set(0x9e, T::kLongAddress64Is1, Reading::kLongAddress);
  for (int h = 0xa0; h <= 0xaf; ++h) {
    const int q = h & 0xf;
    const bool reserved_q =
        q == 0x3 || q == 0x4 || q == 0x7 || q == 0x8 || q == 0x9 || q == 0xd || q == 0xe;
    if (reserved_q || !config_.q_elements) {
      reserved(h, T::kQ);
    } else {
      set(h, T::kQ, Reading::kQ);
    }
  }
  if (config_.version() >= 0x50) {
    for (int h = 0xb0; h <= 0xb2; ++h) set(h, T::kSourceAddressMatch);
    set(0xb4, T::kSourceShortAddressIs0, Reading::kShortAddress);
    set(0xb5, T::kSourceShortAddressIs1, Reading::kShortAddress);
    set(0xb6, T::kSourceLongAddress32Is0, Reading::kLongAddress);
    set(0xb7, T::kSourceLongAddress32Is1, Reading::kLongAddress);
    set(0xb8, T::kSourceLongAddress64Is0, Reading::kLongAddress);
    set(0xb9, T::kSourceLongAddress64Is1, Reading::kLongAddress);
  }
  for (int h = 0xc0; h <= 0xd4; ++h) set(h, T::kAtomF6);
  for (int h = 0xd5; h <= 0xd7; ++h) set(h, T::kAtomF5);
  for (int h = 0xd8; h <= 0xdb; ++h) set(h, T::kAtomF2);
  for (int h = 0xdc; h <= 0xdf; ++h) set(h, T::kAtomF4);
  for (int h = 0xe0; h <= 0xf4; ++h) set(h, T::kAtomF6);
  set(0xf5, T::kAtomF5);
  set(0xf6, T::kAtomF1);
  set(0xf7, T::kAtomF1);
  for (int h = 0xf8; h <= 0xff; ++h) set(h, T::kAtomF3);
}

void Etm4PacketParser::Reset() {
  bytes_.clear();
  reading_ = Reading::kHeader;
  synchronized_ = false;
  sent_not_sync_ = false;
  seen_trace_info_ = false;
  have_index_after_dump_ = false;
  deferred_dump_ = 0;
  packet_index_ = 0;
  end_index_ = 0;
  // The start state clears what is valid; the values themselves stay (as
  // OpenCSD keeps them: a trace info resets the addresses).
  context_valid_ = false;
  timestamp_valid_ = false;
  cc_threshold_valid_ = false;
  timestamp_ = 0;
  address_.valid_bits = 0;
  address_.isa = 0;
  context_.updated = context_.context_id_updated = context_.vmid_updated = false;
  packet_ = Etm4Packet{};
}

void Etm4PacketParser::Parse(std::span<const uint8_t> bytes, uint64_t index,
                             std::vector<Etm4Packet>& out) {
  if (bytes.empty()) return;
  if (deferred_dump_ > 0) {
    const size_t count = deferred_dump_;
    deferred_dump_ = 0;
    DropUnsynced(count, out);
  }
  const size_t n = bytes.size();
  for (size_t i = 0; i < n;) {
    if (synchronized_ && reading_ == Reading::kHeader) {
      // The common packets, whole in this piece, straight from the bytes.
      const size_t used = ReadWholePacket(bytes.subspan(i), index + i, out);
      if (used > 0) {
        i += used;
        continue;
      }
    }
    last_of_piece_ = i + 1 == n;
    Step(bytes[i], index + i, out);
    ++i;
  }
  end_index_ = index + n;
}

uint64_t Etm4PacketParser::pending_index() const {
  // Between packets, the next one starts where the bytes given so far end.
  return bytes_.empty() && reading_ == Reading::kHeader ? end_index_ : packet_index_;
}

size_t Etm4PacketParser::ReadWholePacket(std::span<const uint8_t> rest, uint64_t index,
                                         std::vector<Etm4Packet>& out) {
  const uint8_t byte = rest[0];
  const Header& header = headers_[byte];
  auto emit = [&](T type) -> Etm4Packet& {
    // A copy of a blank packet: cheaper than value-initializing one.
    static constexpr Etm4Packet kBlank{};
    Etm4Packet& packet = out.emplace_back(kBlank);
    packet.type = type;
    packet.index = index;
    return packet;
  };
  switch (header.type) {
    case T::kAtomF1:
    case T::kAtomF2:
    case T::kAtomF3:
    case T::kAtomF4:
    case T::kAtomF5:
    case T::kAtomF6: {
      Etm4Packet& packet = emit(header.type);
      AtomsOf(header.type, byte, packet);
      return 1;
    }
    case T::kLongAddress64Is0:
    case T::kLongAddress64Is1: {
      if (rest.size() < 9) return 0;
      const uint8_t isa = header.type == T::kLongAddress64Is1 ? 1 : 0;
      Set64BitAddress(LongAddress64(rest.data() + kPayload, isa), isa);
      Etm4Packet& packet = emit(header.type);
      packet.address = address_.value;
      packet.isa = isa;
      return 9;
    }
    case T::kShortAddressIs0:
    case T::kShortAddressIs1: {
      if (rest.size() < 2) return 0;
      const size_t size = (rest[1] & 0x80) ? 3 : 2;
      if (rest.size() < size) return 0;
      const uint8_t isa = header.type == T::kShortAddressIs1 ? 1 : 0;
      const int shift = isa == 0 ? 2 : 1;
      uint32_t value = uint32_t{rest[1] & 0x7fu} << shift;
      int bits = 7 + shift;
      if (size == 3) {
        value |= uint32_t{rest[2]} << (7 + shift);
        bits += 8;
      }
      UpdateShortAddress(value, isa, bits);
      Etm4Packet& packet = emit(header.type);
      packet.address = address_.value;
      packet.isa = isa;
      return size;
    }
    case T::kAddressMatch: {
      if (header.reserved) return 0;
      MatchAddress(byte & 0x3);
      Etm4Packet& packet = emit(header.type);
      packet.match_index = byte & 0x3;
      packet.address = address_.value;
      packet.isa = address_.isa;
      return 1;
    }
    default:
      return 0;
  }
}

void Etm4PacketParser::AtomsOf(T type, uint8_t byte, Etm4Packet& packet) {
  auto set = [&](uint32_t bits, uint8_t count) {
    packet.atom_bits = bits;
    packet.atom_count = count;
  };
  switch (type) {
    case T::kAtomF1:
      return set(byte & 0x1, 1);
    case T::kAtomF2:
      return set(byte & 0x3, 2);
    case T::kAtomF3:
      return set(byte & 0x7, 3);
    case T::kAtomF4: {
      static constexpr uint32_t kPatterns[] = {0xe, 0x0, 0xa, 0x5};  // EEEN NNNN ENEN NENE
      return set(kPatterns[byte & 0x3], 4);
    }
    case T::kAtomF5:
      switch (((byte & 0x20) >> 3) | (byte & 0x3)) {
        case 5:
          return set(0x1e, 5);  // NEEEE
        case 1:
          return set(0x00, 5);
        case 2:
          return set(0x0a, 5);
        case 3:
          return set(0x15, 5);
        default:  // no such pattern: a packet without atoms
          return set(0, 0);
      }
    case T::kAtomF6: {
      const int count = (byte & 0x1f) + 3;  // E atoms, then one more
      uint32_t bits = (uint32_t{1} << count) - 1;
      if ((byte & 0x20) == 0) bits |= uint32_t{1} << count;
      return set(bits, static_cast<uint8_t>(count + 1));
    }
    default:
      return set(0, 0);
  }
}

uint64_t Etm4PacketParser::LongAddress64(const uint8_t* a, uint8_t isa) {
  uint64_t value = isa == 0 ? (uint64_t{a[0] & 0x7fu} << 2) | (uint64_t{a[1] & 0x7fu} << 9)
                            : (uint64_t{a[0] & 0x7fu} << 1) | (uint64_t{a[1]} << 8);
  for (int i = 2; i < 8; ++i) value |= uint64_t{a[i]} << (8 * i);
  return value;
}

uint32_t Etm4PacketParser::LongAddress32(const uint8_t* a, uint8_t isa) {
  uint32_t value = isa == 0 ? (uint32_t{a[0] & 0x7fu} << 2) | (uint32_t{a[1] & 0x7fu} << 9)
                            : (uint32_t{a[0] & 0x7fu} << 1) | (uint32_t{a[1]} << 8);
  return value | uint32_t{a[2]} << 16 | uint32_t{a[3]} << 24;
}

void Etm4PacketParser::Finish(std::vector<Etm4Packet>& out) {
  deferred_dump_ = 0;
  if (bytes_.empty()) return;
  packet_.error_of = packet_.type;
  packet_.type = T::kIncompleteEot;
  Send(out);
}

void Etm4PacketParser::Step(uint8_t byte, uint64_t index, std::vector<Etm4Packet>& out) {
  if (reading_ == Reading::kHeader) {
    packet_index_ = index;
    if (!synchronized_) {
      reading_ = Reading::kNotSync;
      packet_.type = T::kNotSync;
    }
  }
  bytes_.push_back(byte);
  switch (reading_) {
    case Reading::kHeader:
      return ReadHeader(byte, out);
    case Reading::kNotSync:
      return ReadNotSync(byte, index, out);
    case Reading::kExtension:
      return ReadExtension(byte, out);
    case Reading::kAsync:
      return ReadAsync(byte, out);
    case Reading::kTraceInfo:
      return ReadTraceInfo(byte, out);
    case Reading::kTimestamp:
      return ReadTimestamp(byte, out);
    case Reading::kException:
      return ReadException(byte, out);
    case Reading::kCycleCount:
      return ReadCycleCount(byte, out);
    case Reading::kSpeculation:
      return ReadSpeculation(byte, out);
    case Reading::kContext:
      return ReadContext(byte, out);
    case Reading::kAddressContext:
      return ReadAddressContext(byte, out);
    case Reading::kShortAddress:
      return ReadShortAddress(byte, out);
    case Reading::kLongAddress:
      return ReadLongAddress(byte, out);
    case Reading::kQ:
      return ReadQ(byte, out);
    case Reading::kIte:
      return ReadIte(byte, out);
  }
}

void Etm4PacketParser::ReadHeader(uint8_t byte, std::vector<Etm4Packet>& out) {
  const Header& header = headers_[byte];
  packet_.type = header.type;
  if (header.reserved) return SendError(T::kReserved, out);
  if (header.reserved_for_config) return SendError(T::kReservedForConfig, out);
  if (header.reading != Reading::kHeader) {
    reading_ = header.reading;
    // The header byte is the packet's first byte for its reader too.
    bytes_.pop_back();
    return Step(byte, packet_index_, out);
  }
  switch (header.type) {
    case T::kAtomF1:
    case T::kAtomF2:
    case T::kAtomF3:
    case T::kAtomF4:
    case T::kAtomF5:
    case T::kAtomF6:
      AtomsOf(header.type, byte, packet_);
      break;
    case T::kAddressMatch:
    case T::kSourceAddressMatch:
      MatchAddress(byte & 0x3);
      break;
    case T::kEvent:
      packet_.event = byte & 0xf;
      break;
    default:
      break;
  }
  Send(out);
}

void Etm4PacketParser::ReadNotSync(uint8_t byte, uint64_t index, std::vector<Etm4Packet>& out) {
  if (byte == 0x00) {
    // Perhaps an A-sync starts: what came before it is dropped.
    if (bytes_.size() > 1) {
      index_after_dump_ = index;
      have_index_after_dump_ = true;
      DumpUnsynced(bytes_.size() - 1, out);
    } else {
      packet_index_ = index;
    }
    reading_ = Reading::kExtension;
  } else if (bytes_.size() >= 8) {
    index_after_dump_ = index + 1;
    have_index_after_dump_ = true;
    DumpUnsynced(bytes_.size(), out);
  }
}

void Etm4PacketParser::DumpUnsynced(size_t count, std::vector<Etm4Packet>& out) {
  // OpenCSD drops them when it next runs: after this piece, if this is its
  // last byte (at the end of the trace, they are an incomplete packet).
  if (last_of_piece_) {
    deferred_dump_ = count;
    return;
  }
  DropUnsynced(count, out);
}

void Etm4PacketParser::DropUnsynced(size_t count, std::vector<Etm4Packet>& out) {
  if (!sent_not_sync_) {
    Etm4Packet packet = packet_;
    packet.index = packet_index_;
    out.push_back(packet);
    sent_not_sync_ = true;
  }
  bytes_.erase(bytes_.begin(), bytes_.begin() + static_cast<ptrdiff_t>(count));
  if (have_index_after_dump_) {
    packet_index_ = index_after_dump_;
    have_index_after_dump_ = false;
  }
}

void Etm4PacketParser::ReadExtension(uint8_t byte, std::vector<Etm4Packet>& out) {
  if (bytes_.size() != 2) return;
  if (!synchronized_ && byte != 0x00) {
    reading_ = Reading::kNotSync;
    packet_.type = T::kNotSync;
    return;
  }
  switch (byte) {
    case 0x03:
      packet_.type = T::kDiscard;
      return Send(out);
    case 0x05:
      packet_.type = T::kOverflow;
      return Send(out);
    case 0x00:
      packet_.type = T::kAsync;
      reading_ = Reading::kAsync;
      return;
    default:
      return SendError(T::kBadSequence, out);
  }
}

void Etm4PacketParser::ReadAsync(uint8_t byte, std::vector<Etm4Packet>& out) {
  if (byte != 0x00) {
    if (!synchronized_ && bytes_.size() != 12) {
      reading_ = Reading::kNotSync;
      packet_.type = T::kNotSync;
      return;
    }
    if (bytes_.size() != 12 || byte != 0x80) return SendError(T::kBadSequence, out);
    synchronized_ = true;
    return Send(out);
  }
  if (bytes_.size() == 12) {
    if (!synchronized_) return DumpUnsynced(1, out);  // one zero too many: slide on
    return SendError(T::kBadSequence, out);
  }
}

void Etm4PacketParser::ReadTraceInfo(uint8_t byte, std::vector<Etm4Packet>& out) {
  Progress& p = in_packet_;
  const bool last = (byte & 0x80) == 0;
  if (bytes_.size() == 1) {
    p.sections = 0;
    p.control_bytes = 1;
  } else if (bytes_.size() == 2) {
    // A section bit set means the section is present, so still to come.
    p.sections = static_cast<uint8_t>(~byte & kAllSections);
    if (last) p.sections |= kControlDone;
  } else if ((p.sections & kControlDone) == 0) {
    if (last) p.sections |= kControlDone;
    ++p.control_bytes;
  } else {
    for (uint8_t section :
         {kInfoSection, kKeySection, kSpecSection, kCycleSection, kWindowSection}) {
      if ((p.sections & section) == 0) {
        if (last) p.sections |= section;
        break;
      }
    }
  }
  if (p.sections != (kAllSections | kControlDone)) return;

  size_t at = static_cast<size_t>(p.control_bytes) + 1;
  const uint8_t present = bytes_[1] & kAllSections;
  // A trace info starts the address history and the timestamp afresh.
  packet_.trace_info = 0;
  packet_.spec_depth = 0;
  packet_.p0_key = 0;
  timestamp_valid_ = false;
  cc_threshold_valid_ = false;
  cc_threshold_ = 0;
  history_.fill(Address{0, 0, 64, true});
  address_ = history_[0];
  uint32_t value = 0;
  if ((present & kInfoSection) && at < bytes_.size()) {
    at += ContinuationField(at, value);
    packet_.trace_info = value;
  }
  if ((present & kKeySection) && at < bytes_.size()) {
    at += ContinuationField(at, value);
    packet_.p0_key = value;
  }
  if ((present & kSpecSection) && at < bytes_.size()) {
    at += ContinuationField(at, value);
    packet_.spec_depth = value;
  }
  if ((present & kCycleSection) && at < bytes_.size()) {
    at += ContinuationField(at, value);
    cc_threshold_ = value;
    cc_threshold_valid_ = true;
  }
  // A commit window section (ETE) carries nothing the decode uses.
  seen_trace_info_ = true;
  Send(out);
}

void Etm4PacketParser::ReadTimestamp(uint8_t byte, std::vector<Etm4Packet>& out) {
  Progress& p = in_packet_;
  if (bytes_.size() == 1) {
    p.done_b = (byte & 0x1) == 0;  // no cycle count follows
    p.done_a = false;
    p.remaining_a = 0;  // timestamp bytes read
  } else if (!p.done_a) {
    ++p.remaining_a;
    p.done_a = p.remaining_a == 9 || (byte & 0x80) == 0;
  } else if (!p.done_b) {
    p.done_b = (byte & 0x80) == 0;
  }
  if (!p.done_a || !p.done_b) return;

  // Seven bits a byte; a ninth byte holds eight.
  uint64_t value = 0;
  size_t n = 0;
  for (bool more = true; more;) {
    const uint8_t b = bytes_[1 + n];
    if (n == 8) {
      value |= uint64_t{b} << 56;
      more = false;
    } else {
      value |= uint64_t{b & 0x7fu} << (7 * n);
      more = (b & 0x80) != 0;
    }
    ++n;
  }
  int bits = n < 9 ? static_cast<int>(n) * 7 : 64;
  if (!timestamp_valid_ && seen_trace_info_) bits = 64;  // the bits not sent are 0
  const uint64_t mask = bits < 64 ? (uint64_t{1} << bits) - 1 : ~uint64_t{0};
  timestamp_ = (timestamp_ & ~mask) | (value & mask);
  timestamp_valid_ = true;
  if (bytes_[0] & 0x1) {
    uint32_t count = 0;
    ContinuationField(1 + n, count, 3);
    packet_.cycle_count = count & ((uint32_t{1} << config_.cc_bits) - 1);
    packet_.has_cycle_count = true;
  }
  Send(out);
}

void Etm4PacketParser::ReadException(uint8_t byte, std::vector<Etm4Packet>& out) {
  Progress& p = in_packet_;
  if (bytes_.size() == 1) {
    p.size = 3;
  } else if (bytes_.size() == 2) {
    if ((byte & 0x80) == 0) p.size = 2;
    const int type = (bytes_[1] >> 1) & 0x1f;
    if (config_.major >= 5 && (type == 0x0 || type == 0x18)) p.size = 3;
  }
  if (bytes_.size() != p.size) return;
  uint16_t type = (bytes_[1] >> 1) & 0x1f;
  packet_.address_interpretation =
      static_cast<uint8_t>(((bytes_[1] & 0x40) >> 5) | (bytes_[1] & 0x1));
  if (bytes_[1] & 0x80) type = static_cast<uint16_t>(type | (bytes_[2] & 0x1f) << 5);
  packet_.exception_type = type;
  if (config_.major >= 5 && (type == 0x0 || type == 0x18)) {
    Set64BitAddress(0, 0);
    packet_.type = type == 0x18 ? T::kTransactionFail : T::kPeReset;
  }
  Send(out);
}

void Etm4PacketParser::ReadCycleCount(uint8_t byte, std::vector<Etm4Packet>& out) {
  Progress& p = in_packet_;
  const T type = packet_.type;
  const uint32_t threshold = cc_threshold_valid_ ? cc_threshold_ : 0;
  if (bytes_.size() == 1) {
    p.done_a = p.done_b = false;  // commit, count
    p.has_second = true;          // a count is present
    if (type == T::kCycleCountF3) {
      if (!config_.commit_opt1) {
        packet_.commit = ((byte >> 2) & 0x3) + 1;
        packet_.has_commit = true;
      }
      packet_.cycle_count = threshold + (byte & 0x3);
      packet_.has_cycle_count = true;
      return Send(out);
    }
    if (type == T::kCycleCountF1) {
      if (byte & 0x1) {
        p.has_second = false;
        p.done_b = true;
      }
      if (config_.commit_opt1) p.done_a = true;
    }
  } else if (type == T::kCycleCountF2 && bytes_.size() == 2) {
    const int offset = (byte & 0x1) ? static_cast<int>(config_.max_spec_depth) - 15 : 1;
    packet_.commit = static_cast<uint32_t>(((byte >> 4) & 0xf) + offset);
    packet_.has_commit = true;
    packet_.cycle_count = threshold + (byte & 0xf);
    packet_.has_cycle_count = true;
    return Send(out);
  } else if (!p.done_a) {
    p.done_a = (byte & 0x80) == 0;
  } else if (!p.done_b) {
    p.done_b = (byte & 0x80) == 0;
  }
  if (type != T::kCycleCountF1 || !p.done_a || !p.done_b) return;
  size_t at = 1;
  uint32_t value = 0;
  if (!config_.commit_opt1) {
    at += ContinuationField(at, value);
    packet_.commit = value;
    packet_.has_commit = true;
  }
  if (p.has_second) {
    ContinuationField(at, value, 3);
    packet_.cycle_count = value + threshold;
  } else {
    packet_.cycle_count = 0;  // unknown after an overflow
  }
  packet_.has_cycle_count = true;
  Send(out);
}

void Etm4PacketParser::ReadSpeculation(uint8_t byte, std::vector<Etm4Packet>& out) {
  const T type = packet_.type;
  if (bytes_.size() == 1) {
    if (type == T::kMispredict || type == T::kCancelF2) {
      switch (byte & 0x3) {
        case 0x1:
          SetAtoms(0x1, 1);  // E
          break;
        case 0x2:
          SetAtoms(0x3, 2);  // EE
          break;
        case 0x3:
          SetAtoms(0x0, 1);  // N
          break;
        default:
          break;
      }
      packet_.cancel = type == T::kCancelF2 ? 1 : 0;
      return Send(out);
    }
    if (type == T::kCancelF3) {
      if (byte & 0x1) SetAtoms(0x1, 1);
      packet_.cancel = ((byte >> 1) & 0x3) + 2;
      return Send(out);
    }
    return;  // commit and cancel F1: a count follows
  }
  if (byte & 0x80) return;
  uint32_t value = 0;
  ContinuationField(1, value);
  if (type == T::kCommit) {
    packet_.commit = value;
    packet_.has_commit = true;
  } else {
    packet_.cancel = value;
  }
  Send(out);
}

void Etm4PacketParser::ReadContext(uint8_t byte, std::vector<Etm4Packet>& out) {
  Progress& p = in_packet_;
  bool complete = false;
  if (bytes_.size() == 1) {
    if ((byte & 0x1) == 0) {  // the context is the same as before
      context_valid_ = true;
      return Send(out);
    }
  } else if (bytes_.size() == 2) {
    if ((byte & 0xc0) == 0) {
      complete = true;
    } else {
      p.remaining_a = (byte & 0x40) ? static_cast<int>(config_.vmid_bytes) : 0;
      p.remaining_b = (byte & 0x80) ? static_cast<int>(config_.cid_bytes) : 0;
    }
  } else {
    if (p.remaining_a > 0) {
      --p.remaining_a;
    } else if (p.remaining_b > 0) {
      --p.remaining_b;
    }
    complete = p.remaining_a == 0 && p.remaining_b == 0;
  }
  if (!complete) return;
  SetContextFields(1);
  Send(out);
}

void Etm4PacketParser::SetContextFields(size_t at) {
  const uint8_t info = bytes_[at];
  context_valid_ = true;
  context_.updated = true;
  context_.el = info & 0x3;
  context_.non_secure = (info >> 5) & 0x1;
  context_.sixty_four_bit = (info >> 4) & 0x1;
  context_.nse = (info >> 3) & 0x1;
  size_t next = at + 1;
  if (info & 0x40) {
    uint32_t vmid = 0;
    for (uint32_t i = 0; i < config_.vmid_bytes; ++i) vmid |= uint32_t{bytes_[next + i]} << (8 * i);
    next += config_.vmid_bytes;
    if (config_.vmid_bytes > 0) {
      context_.vmid = vmid;
      context_.vmid_updated = true;
    }
  }
  if ((info & 0x80) && config_.cid_bytes > 0) {
    uint32_t id = 0;
    for (uint32_t i = 0; i < config_.cid_bytes; ++i) id |= uint32_t{bytes_[next + i]} << (8 * i);
    context_.context_id = id;
    context_.context_id_updated = true;
  }
}

void Etm4PacketParser::ReadAddressContext(uint8_t byte, std::vector<Etm4Packet>& out) {
  Progress& p = in_packet_;
  if (bytes_.size() == 1) {
    const T type = packet_.type;
    p.isa = IsOne(type, {T::kAddressContext32Is1, T::kAddressContext64Is1}) ? 1 : 0;
    p.sixty_four = IsOne(type, {T::kAddressContext64Is0, T::kAddressContext64Is1});
    p.remaining_c = p.sixty_four ? 8 : 4;  // address bytes
    p.remaining_a = p.remaining_b = 0;     // VMID, context id bytes
    p.done_a = false;                      // the context info byte
    return;
  }
  if (p.remaining_c > 0) {
    --p.remaining_c;
  } else if (!p.done_a) {
    p.done_a = true;
    p.remaining_a = (byte & 0x40) ? static_cast<int>(config_.vmid_bytes) : 0;
    p.remaining_b = (byte & 0x80) ? static_cast<int>(config_.cid_bytes) : 0;
  } else if (p.remaining_a > 0) {
    --p.remaining_a;
  } else if (p.remaining_b > 0) {
    --p.remaining_b;
  }
  if (p.remaining_c > 0 || !p.done_a || p.remaining_a > 0 || p.remaining_b > 0) return;
  if (p.sixty_four) {
    Set64BitAddress(LongAddress64(bytes_.data() + kPayload, p.isa), p.isa);
    SetContextFields(9);
  } else {
    Set32BitAddress(LongAddress32(bytes_.data() + kPayload, p.isa), p.isa);
    SetContextFields(5);
  }
  Send(out);
}

void Etm4PacketParser::ReadShortAddress(uint8_t byte, std::vector<Etm4Packet>& out) {
  Progress& p = in_packet_;
  if (bytes_.size() == 1) {
    p.done_a = false;
    p.isa = byte == 0x96 || byte == 0xb5 ? 1 : 0;
    return;
  }
  if (!p.done_a) p.done_a = bytes_.size() == 3 || (byte & 0x80) == 0;
  if (!p.done_a) return;
  uint32_t value = 0;
  int bits = 0;
  ShortAddressField(1, p.isa, value, bits);
  UpdateShortAddress(value, p.isa, bits);
  Send(out);
}

void Etm4PacketParser::ReadLongAddress(uint8_t byte, std::vector<Etm4Packet>& out) {
  (void)byte;
  Progress& p = in_packet_;
  if (bytes_.size() == 1) {
    const T type = packet_.type;
    p.isa = IsOne(type, {T::kLongAddress32Is1, T::kLongAddress64Is1, T::kSourceLongAddress32Is1,
                         T::kSourceLongAddress64Is1})
                ? 1
                : 0;
    p.sixty_four = IsOne(type, {T::kLongAddress64Is0, T::kLongAddress64Is1,
                                T::kSourceLongAddress64Is0, T::kSourceLongAddress64Is1});
  }
  if (bytes_.size() != (p.sixty_four ? 9u : 5u)) return;
  if (p.sixty_four) {
    Set64BitAddress(LongAddress64(bytes_.data() + kPayload, p.isa), p.isa);
  } else {
    Set32BitAddress(LongAddress32(bytes_.data() + kPayload, p.isa), p.isa);
  }
  Send(out);
}

void Etm4PacketParser::ReadQ(uint8_t byte, std::vector<Etm4Packet>& out) {
  Progress& p = in_packet_;
  if (bytes_.size() == 1) {
    p.q_type = byte & 0xf;
    p.remaining_a = 0;  // address bytes
    p.done_a = false;   // the count
    p.has_address = false;
    p.short_form = true;
    p.match = false;
    p.isa = 1;
    switch (p.q_type) {
      case 0x0:
      case 0x1:
      case 0x2:
        p.match = true;
        p.has_address = true;
        break;
      case 0xc:
        break;
      case 0x5:
      case 0x6:
        p.isa = p.q_type == 0x5 ? 0 : 1;
        p.has_address = true;
        p.remaining_a = 2;
        break;
      case 0xa:
      case 0xb:
        p.isa = p.q_type == 0xa ? 0 : 1;
        p.has_address = true;
        p.short_form = false;
        p.remaining_a = 4;
        break;
      case 0xf:
        p.done_a = true;
        break;
      default:
        return SendError(T::kBadSequence, out);
    }
  } else if (p.remaining_a > 0) {
    if (p.short_form && p.remaining_a == 2 && (byte & 0x80) == 0) --p.remaining_a;
    --p.remaining_a;
  } else if (!p.done_a) {
    p.done_a = (byte & 0x80) == 0;
  }
  if (p.remaining_a > 0 || !p.done_a) return;
  size_t at = 1;
  if (p.has_address) {
    if (p.match) {
      MatchAddress(p.q_type & 0x3);
    } else if (p.short_form) {
      uint32_t value = 0;
      int bits = 0;
      at += static_cast<size_t>(ShortAddressField(at, p.isa, value, bits));
      UpdateShortAddress(value, p.isa, bits);
    } else {
      Set32BitAddress(LongAddress32(bytes_.data() + at, p.isa), p.isa);
      at += 4;
    }
  }
  packet_.q_type = p.q_type;
  if (p.q_type != 0xf) ContinuationField(at, packet_.q_count);
  Send(out);
}

void Etm4PacketParser::ReadIte(uint8_t byte, std::vector<Etm4Packet>& out) {
  (void)byte;
  if (bytes_.size() == 10) Send(out);  // header, EL, 8 bytes of value
}

void Etm4PacketParser::SetAtoms(uint32_t bits, uint8_t count) {
  packet_.atom_bits = bits;
  packet_.atom_count = count;
}

void Etm4PacketParser::PushAddress(uint64_t address, uint8_t isa) {
  address_.value = address;
  address_.isa = isa;
  history_[2] = history_[1];
  history_[1] = history_[0];
  history_[0] = address_;
}

void Etm4PacketParser::Set64BitAddress(uint64_t address, uint8_t isa) {
  address_.valid_bits = 64;
  address_.sixty_four = true;
  PushAddress(address, isa);
}

void Etm4PacketParser::Set32BitAddress(uint32_t address, uint8_t isa) {
  uint64_t value = address;
  if (context_valid_ && context_.sixty_four_bit) {
    value = (address_.value & ~uint64_t{0xffffffff}) | address;
    address_.sixty_four = true;
  } else {
    address_.sixty_four = false;
  }
  address_.valid_bits = std::max<uint8_t>(address_.valid_bits, 32);
  PushAddress(value, isa);
}

void Etm4PacketParser::UpdateShortAddress(uint32_t value, uint8_t isa, int bits) {
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  address_.valid_bits = std::max<uint8_t>(address_.valid_bits, static_cast<uint8_t>(bits));
  PushAddress((address_.value & ~mask) | (value & mask), isa);
}

void Etm4PacketParser::MatchAddress(uint8_t index) {
  packet_.match_index = index;
  if (index < 3) address_ = history_[index];
  PushAddress(address_.value, address_.isa);
}

size_t Etm4PacketParser::ContinuationField(size_t at, uint32_t& value, size_t limit) const {
  value = 0;
  size_t n = 0;
  for (bool more = true; more && n < limit && at + n < bytes_.size(); ++n) {
    const uint8_t b = bytes_[at + n];
    value |= uint32_t{b & 0x7fu} << (7 * n);
    more = (b & 0x80) != 0;
  }
  return n;
}

int Etm4PacketParser::ShortAddressField(size_t at, uint8_t isa, uint32_t& value, int& bits) const {
  const int shift = isa == 0 ? 2 : 1;
  bits = 7;
  value = uint32_t{bytes_[at] & 0x7fu} << shift;
  int used = 1;
  if (bytes_[at] & 0x80) {
    value |= uint32_t{bytes_[at + 1]} << (7 + shift);
    bits += 8;
    used = 2;
  }
  bits += shift;
  return used;
}

void Etm4PacketParser::SendError(Etm4PacketType error, std::vector<Etm4Packet>& out) {
  packet_.error_of = packet_.type;
  packet_.type = error;
  Send(out);
}

void Etm4PacketParser::Send(std::vector<Etm4Packet>& out) {
  Etm4Packet& packet = out.emplace_back(packet_);
  packet.index = packet_index_;
  packet.address = address_.value;
  packet.isa = address_.isa;
  packet.context = context_;
  packet.timestamp = timestamp_;
  packet.cc_threshold = cc_threshold_valid_ ? cc_threshold_ : 0;
  // What holds for one packet only.
  bytes_.clear();
  reading_ = Reading::kHeader;
  packet_.error_of = T::kNotSync;
  packet_.atom_count = 0;
  packet_.atom_bits = 0;
  packet_.has_cycle_count = false;
  packet_.has_commit = false;
  context_.updated = context_.context_id_updated = context_.vmid_updated = false;
}

}  // namespace perftk::cs_etm

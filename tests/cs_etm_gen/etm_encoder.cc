#include "etm_encoder.h"

namespace perftk::etm_gen {
namespace {

constexpr uint8_t kTraceInfo = 0x01;
constexpr uint8_t kTimestamp = 0x02;
constexpr uint8_t kTraceOn = 0x04;
constexpr uint8_t kException = 0x06;
constexpr uint8_t kContextUpdate = 0x81;
constexpr uint8_t kAddressContext64Is0 = 0x85;
constexpr uint8_t kLongAddress64Is0 = 0x9d;
constexpr uint8_t kAtomF1 = 0xf6;   // | E
constexpr uint8_t kAtomF2 = 0xd8;   // | 2 atoms, oldest in bit 0
constexpr uint8_t kAtomF3 = 0xf8;   // | 3 atoms, oldest in bit 0
constexpr uint8_t kAtomF6E = 0xc0;  // | (n - 3): n E atoms, then E
constexpr uint8_t kAtomF6N = 0xe0;  // | (n - 3): n E atoms, then N
constexpr size_t kF6MaxRun = 23;

}  // namespace

void EtmV4Encoder::ASync() {
  FlushAtoms();
  bytes_.insert(bytes_.end(), 11, 0x00);
  bytes_.push_back(0x80);
}

void EtmV4Encoder::TraceInfo() {
  FlushAtoms();
  bytes_.push_back(kTraceInfo);
  bytes_.push_back(0x00);  // control byte: no info, key, spec or cyct sections
}

void EtmV4Encoder::TraceOn() {
  FlushAtoms();
  bytes_.push_back(kTraceOn);
}

void EtmV4Encoder::Timestamp(uint64_t value) {
  FlushAtoms();
  bytes_.push_back(kTimestamp);
  // 7 bits per byte with a continuation bit; the ninth byte holds 8 bits.
  for (int i = 0; i < 9; ++i) {
    if (i == 8) {
      bytes_.push_back(static_cast<uint8_t>(value));
      break;
    }
    uint8_t low = value & 0x7f;
    value >>= 7;
    bool more = value != 0 || i < 6;
    bytes_.push_back(low | (more ? 0x80 : 0));
    if (!more) break;
  }
}

void EtmV4Encoder::ContextPayload(const EtmContext& context) {
  // info: EL[1:0], SF bit 4, NS bit 5, V bit 6 (no VMID), C bit 7.
  bytes_.push_back(static_cast<uint8_t>((context.el & 0x3) | (context.sixty_four_bit ? 0x10 : 0) |
                                        (context.non_secure ? 0x20 : 0) | 0x80));
  for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(context.context_id >> (8 * i)));
}

void EtmV4Encoder::AddressPayload(uint64_t address) {
  // IS0: bits [8:2] and [15:9] in 7-bit fields, then bytes of [63:16].
  bytes_.push_back(static_cast<uint8_t>((address >> 2) & 0x7f));
  bytes_.push_back(static_cast<uint8_t>((address >> 9) & 0x7f));
  for (int shift = 16; shift < 64; shift += 8)
    bytes_.push_back(static_cast<uint8_t>(address >> shift));
}

void EtmV4Encoder::Context(const EtmContext& context) {
  FlushAtoms();
  bytes_.push_back(kContextUpdate);
  ContextPayload(context);
}

void EtmV4Encoder::AddressWithContext(uint64_t address, const EtmContext& context) {
  FlushAtoms();
  bytes_.push_back(kAddressContext64Is0);
  AddressPayload(address);
  ContextPayload(context);
}

void EtmV4Encoder::LongAddress(uint64_t address) {
  FlushAtoms();
  bytes_.push_back(kLongAddress64Is0);
  AddressPayload(address);
}

void EtmV4Encoder::Exception(uint8_t type, uint64_t return_address) {
  FlushAtoms();
  bytes_.push_back(kException);
  bytes_.push_back(static_cast<uint8_t>((type & 0x1f) << 1));  // E1:E0 = 0, one info byte
  bytes_.push_back(kLongAddress64Is0);
  AddressPayload(return_address);
}

void EtmV4Encoder::FlushAtoms() {
  size_t i = 0;
  const size_t n = atoms_.size();
  while (i < n) {
    size_t run = 0;
    while (i + run < n && atoms_[i + run] && run < kF6MaxRun + 1) ++run;
    if (run >= 3 && i + run < n && !atoms_[i + run] && run <= kF6MaxRun) {
      bytes_.push_back(static_cast<uint8_t>(kAtomF6N | (run - 3)));  // run E, then N
      ++atom_formats_[6];
      i += run + 1;
    } else if (run >= 4) {
      bytes_.push_back(static_cast<uint8_t>(kAtomF6E | (run - 4)));  // run - 1 E, then E
      ++atom_formats_[6];
      i += run;
    } else if (n - i >= 3) {
      bytes_.push_back(
          static_cast<uint8_t>(kAtomF3 | atoms_[i] | (atoms_[i + 1] << 1) | (atoms_[i + 2] << 2)));
      ++atom_formats_[3];
      i += 3;
    } else if (n - i == 2) {
      bytes_.push_back(static_cast<uint8_t>(kAtomF2 | atoms_[i] | (atoms_[i + 1] << 1)));
      ++atom_formats_[2];
      i += 2;
    } else {
      bytes_.push_back(static_cast<uint8_t>(kAtomF1 | atoms_[i]));
      ++atom_formats_[1];
      i += 1;
    }
  }
  atoms_.clear();
}

std::vector<uint8_t> EtmV4Encoder::Take() {
  FlushAtoms();
  std::vector<uint8_t> out;
  out.swap(bytes_);
  return out;
}

void FrameFormatter::Add(uint8_t trace_id, const std::vector<uint8_t>& bytes) {
  // (No exact reserve: many small Adds would then copy the items each time.)
  for (uint8_t b : bytes) items_.push_back({trace_id, b});
}

std::vector<uint8_t> FrameFormatter::Finish() {
  constexpr uint8_t kPadId = 0;
  std::vector<uint8_t> out;
  out.reserve(items_.size() * 16 / 14 + 32);
  size_t i = 0;
  const size_t n = items_.size();
  int current = -1;
  auto id_byte = [](uint8_t id) { return static_cast<uint8_t>((id << 1) | 1); };
  while (i < n) {
    uint8_t frame[16] = {};
    uint8_t flags = 0;
    for (int pos = 0; pos < 14; pos += 2) {
      const uint8_t bit = static_cast<uint8_t>(1u << (pos / 2));
      if (i >= n) {  // padding: switch to id 0, its data is dropped
        frame[pos] = id_byte(kPadId);
        current = kPadId;
        continue;
      }
      if (items_[i].id != current) {
        // New id; the odd byte belongs to it.
        current = items_[i].id;
        frame[pos] = id_byte(items_[i].id);
        frame[pos + 1] = items_[i++].byte;
      } else if (i + 1 >= n || items_[i + 1].id != current) {
        // One byte left for this id: an id change whose odd byte still
        // belongs to the previous id.
        uint8_t next_id = i + 1 < n ? items_[i + 1].id : kPadId;
        frame[pos] = id_byte(next_id);
        flags |= bit;
        frame[pos + 1] = items_[i++].byte;
        current = next_id;
      } else {
        frame[pos] = items_[i].byte & 0xfe;
        if (items_[i].byte & 1) flags |= bit;
        ++i;
        frame[pos + 1] = items_[i++].byte;
      }
    }
    // Byte 14: an id or one data byte, its LSB in bit 7 of byte 15.
    if (i >= n) {
      frame[14] = id_byte(kPadId);
      current = kPadId;
    } else if (items_[i].id != current) {
      frame[14] = id_byte(items_[i].id);
      current = items_[i].id;
    } else {
      frame[14] = items_[i].byte & 0xfe;
      if (items_[i].byte & 1) flags |= 0x80;
      ++i;
    }
    frame[15] = flags;
    out.insert(out.end(), frame, frame + 16);
  }
  items_.clear();
  return out;
}

}  // namespace perftk::etm_gen

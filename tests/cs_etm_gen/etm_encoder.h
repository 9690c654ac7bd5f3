// Our own encoder of ETMv4 instruction trace packets (Arm IHI0064, section
// "Instruction trace packets"), enough to describe program flow:
//   A-sync, Trace Info (no optional sections), Trace On, Timestamp,
//   Context (EL, SF, NS, 32-bit CONTEXTIDR), Address with Context and Long
//   Address (64-bit, IS0), Exception (type, preferred return address), and
//   atoms, packed into formats 1, 2, 3 and 6.
// Atoms are queued and written, packed, before any other packet.
//
// FrameFormatter packs the streams of several trace ids into CoreSight
// 16-byte frames (ID bytes on even positions, the LSBs of even data bytes in
// byte 15), padding the last frame with trace id 0.
#ifndef PERFTK_TESTS_CS_ETM_GEN_ETM_ENCODER_H_
#define PERFTK_TESTS_CS_ETM_GEN_ETM_ENCODER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace perftk::etm_gen {

struct EtmContext {
  int8_t el = 0;
  uint32_t context_id = 0;
  bool sixty_four_bit = true;
  bool non_secure = true;
};

// ETMv4 exception types (the Exception packet's TYPE field).
inline constexpr uint8_t kExceptionCall = 0x2;  // SVC, HVC, SMC

class EtmV4Encoder {
 public:
  void ASync();
  void TraceInfo();
  void TraceOn();
  // Written with at least 7 payload bytes, so every bit is replaced.
  void Timestamp(uint64_t value);
  void Context(const EtmContext& context);
  void AddressWithContext(uint64_t address, const EtmContext& context);
  void LongAddress(uint64_t address);
  // An exception whose preferred return address is `return_address`.
  void Exception(uint8_t type, uint64_t return_address);
  void Atom(bool taken) { atoms_.push_back(taken); }

  // Everything so far (atoms flushed); clears the encoder.
  std::vector<uint8_t> Take();
  size_t size() const { return bytes_.size(); }
  // How many packets of each atom format were written (index = format).
  const uint64_t* atom_formats() const { return atom_formats_; }

 private:
  void FlushAtoms();
  void ContextPayload(const EtmContext& context);
  void AddressPayload(uint64_t address);

  std::vector<uint8_t> bytes_;
  std::vector<bool> atoms_;
  uint64_t atom_formats_[7] = {};
};

class FrameFormatter {
 public:
  void Add(uint8_t trace_id, const std::vector<uint8_t>& bytes);
  // The frames of everything added (a multiple of 16 bytes).
  std::vector<uint8_t> Finish();

 private:
  struct Item {
    uint8_t id;
    uint8_t byte;
  };
  std::vector<Item> items_;
};

}  // namespace perftk::etm_gen

#endif  // PERFTK_TESTS_CS_ETM_GEN_ETM_ENCODER_H_
